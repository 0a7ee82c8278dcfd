//! Stall detection's report type; its builder options (`Builder::stall_threshold`,
//! `Builder::on_stall`) are in `builder.rs`, the mechanism in rt-sched (`stall.rs`,
//! `multi_thread/takeover.rs`, `current_thread.rs`).

pub use rt_sched::stall::StallInfo;

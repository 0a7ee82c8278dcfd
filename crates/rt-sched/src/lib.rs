//! rt-sched

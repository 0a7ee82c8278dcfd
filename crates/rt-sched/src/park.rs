//! Thread parking: crossbeam-utils' `Parker` (loom-visible when built with
//! `--cfg crossbeam_loom` and its `loom` feature, which `rt-sched` enables under `cfg(loom)`).

pub(crate) use crossbeam_utils::sync::{Parker, Unparker};

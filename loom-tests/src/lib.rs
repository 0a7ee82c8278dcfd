//! loom models live in `tests/`; this crate only gathers them. Run: `RUSTFLAGS="--cfg loom --cfg crossbeam_loom" cargo test -p loom-tests --release`.

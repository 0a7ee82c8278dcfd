//! Shared helpers for the rt-vs-tokio benchmarks.

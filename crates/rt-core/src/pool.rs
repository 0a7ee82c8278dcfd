//! The frame pool (being written).

//! rt-macros

// `crate = "..."` names the runtime by another path, for a renamed dependency or a re-export.

#![deny(warnings)]

mod reexport {
    pub use ::rt::*;
}

#[rt::main(crate = "reexport", flavor = "current_thread")]
async fn through_module() -> u32 {
    reexport::spawn(async { 3 }).await.unwrap()
}

#[rt::main(crate = "crate::reexport")]
async fn main() {
    assert_eq!(rt::spawn(async { 1 }).await.unwrap(), 1);
    assert_eq!(std::thread::spawn(through_module).join().unwrap(), 3);
}

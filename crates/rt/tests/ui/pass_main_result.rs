// A `Result`-returning main keeps its return type, and `?` converts errors as in any function.

#![deny(warnings)]

use std::error::Error;

/// Attributes and doc comments on the function are kept.
#[rt::main]
#[deny(unused_variables)]
async fn main() -> Result<(), Box<dyn Error>> {
    let parsed: u32 = "42".parse()?;
    let doubled = rt::spawn(async move { parsed * 2 }).await.unwrap();
    assert_eq!(doubled, 84);
    if doubled != 84 {
        // An early `return` leaves the body, as it would in the async fn.
        return Err("unreachable".into());
    }
    Ok(())
}

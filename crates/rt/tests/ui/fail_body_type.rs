// A body whose value does not match the return type is reported inside the body, not on the attribute.

#[rt::main]
async fn count() -> u32 {
    "not a number"
}

fn main() {
    count();
}

#[rt::test(start_paused = "yes")]
async fn not_a_bool() {}

#[rt::test(start_paused = true, start_paused = false)]
async fn twice() {}

fn main() {}

// The hook exists in this build (rt-io with `test-hooks`), so the failing case above fails
// because rt's boundary leaves it out, not because the feature is off.
use rt_io::net::TestResolver;

fn main() {
    let _ = std::any::type_name::<TestResolver>();
}

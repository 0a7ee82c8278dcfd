//! `Command::arg0` sets the child's `argv[0]`, as tokio's.

mod support;

#[test]
fn the_child_sees_the_given_argv0() {
    let out = support::current_thread().block_on(async {
        rt::process::Command::new("sh")
            .arg0("renamed-shell")
            .args(["-c", "echo $0"])
            .output()
            .await
            .unwrap()
    });
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim(),
        "renamed-shell"
    );
}

//! A missing path is `ErrorKind::NotFound` from every `rt::fs` call that needs it to exist.

mod fs_support;
mod support;

use std::io::ErrorKind::NotFound;

use fs_support::Scratch;

#[test]
fn a_missing_path_is_not_found() {
    for (name, rt) in support::runtimes() {
        let dir = Scratch::new(&format!("fs-not-found-{name}"));
        let missing = dir.join("missing");
        rt.block_on(async {
            assert_eq!(rt::fs::read(&missing).await.unwrap_err().kind(), NotFound);
            assert_eq!(
                rt::fs::read_to_string(&missing).await.unwrap_err().kind(),
                NotFound
            );
            assert_eq!(
                rt::fs::metadata(&missing).await.unwrap_err().kind(),
                NotFound
            );
            assert_eq!(
                rt::fs::remove_file(&missing).await.unwrap_err().kind(),
                NotFound
            );
            assert_eq!(
                rt::fs::remove_dir_all(&missing).await.unwrap_err().kind(),
                NotFound
            );
            assert_eq!(
                rt::fs::canonicalize(&missing).await.unwrap_err().kind(),
                NotFound
            );
            assert_eq!(
                rt::fs::read_dir(&missing).await.unwrap_err().kind(),
                NotFound
            );
            assert_eq!(
                rt::fs::copy(&missing, dir.join("to"))
                    .await
                    .unwrap_err()
                    .kind(),
                NotFound
            );
            assert_eq!(
                rt::fs::rename(&missing, dir.join("to"))
                    .await
                    .unwrap_err()
                    .kind(),
                NotFound
            );
            assert_eq!(
                rt::fs::File::open(&missing).await.unwrap_err().kind(),
                NotFound
            );
            assert_eq!(
                rt::fs::write(dir.join("no/dir/f"), b"x")
                    .await
                    .unwrap_err()
                    .kind(),
                NotFound
            );
            assert!(!rt::fs::try_exists(&missing).await.unwrap());
        });
    }
}

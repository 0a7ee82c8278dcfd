//! `fs::DirBuilder`, `fs::symlink`, `File::set_times`, `File::set_modified`, `File::from_raw_fd` and
//! `File::set_max_buf_size`, as tokio's.

use std::os::fd::{FromRawFd, IntoRawFd};
use std::time::{Duration, SystemTime};

use rt::io::{AsyncReadExt, AsyncWriteExt};

mod support;

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("rt-fs-extras-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn dir_builder_recursive_and_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("dirs");
    support::current_thread().block_on(async {
        assert!(rt::fs::DirBuilder::new()
            .create(dir.join("a/b"))
            .await
            .is_err());
        rt::fs::DirBuilder::new()
            .recursive(true)
            .create(dir.join("a/b"))
            .await
            .unwrap();
        rt::fs::DirBuilder::new()
            .mode(0o700)
            .create(dir.join("m"))
            .await
            .unwrap();
        let mode = rt::fs::metadata(dir.join("m"))
            .await
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
    });
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn symlink_points_at_its_source() {
    let dir = scratch("symlink");
    support::current_thread().block_on(async {
        rt::fs::write(dir.join("src"), b"x").await.unwrap();
        rt::fs::symlink(dir.join("src"), dir.join("dst"))
            .await
            .unwrap();
        assert_eq!(
            rt::fs::read_link(dir.join("dst")).await.unwrap(),
            dir.join("src")
        );
        assert_eq!(rt::fs::read(dir.join("dst")).await.unwrap(), b"x");
    });
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn set_times_from_raw_fd_and_max_buf_size() {
    let dir = scratch("file");
    support::current_thread().block_on(async {
        let path = dir.join("f");
        let std = std::fs::File::create(&path).unwrap();
        // SAFETY: the descriptor was just taken out of `std`, which no longer owns it.
        let mut file = unsafe { rt::fs::File::from_raw_fd(std.into_raw_fd()) };
        assert_eq!(file.max_buf_size(), 2 * 1024 * 1024);
        file.set_max_buf_size(4);
        // A write moves at most 4 bytes through the pool at a time.
        assert_eq!(file.write(b"hello").await.unwrap(), 4);
        file.write_all(b"o").await.unwrap();
        file.flush().await.unwrap();
        let when = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        file.set_times(rt::fs::FileTimes::new().set_modified(when))
            .await
            .unwrap();
        assert_eq!(
            rt::fs::metadata(&path).await.unwrap().modified().unwrap(),
            when
        );
        let later = when + Duration::from_secs(60);
        file.set_modified(later).await.unwrap();
        assert_eq!(
            rt::fs::metadata(&path).await.unwrap().modified().unwrap(),
            later
        );

        let mut file = rt::fs::File::open(&path).await.unwrap();
        file.set_max_buf_size(2);
        assert_eq!(
            file.try_clone().await.unwrap().max_buf_size(),
            2,
            "a clone keeps it"
        );
        let mut buf = [0; 8];
        assert_eq!(
            file.read(&mut buf).await.unwrap(),
            2,
            "reads are cut at the size too"
        );
        let mut rest = Vec::new();
        file.read_to_end(&mut rest).await.unwrap();
        assert_eq!(rest, b"llo");
    });
    std::fs::remove_dir_all(dir).unwrap();
}

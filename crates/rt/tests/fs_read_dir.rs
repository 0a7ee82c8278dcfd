//! `read_dir` of a directory of 1,000 files yields each exactly once, through `next_entry` and
//! through the `Stream` form (it reads in batches on the blocking pool).

mod fs_support;
mod support;

use std::collections::BTreeSet;
use std::future::poll_fn;
use std::pin::Pin;

use fs_support::Scratch;
use futures_core::Stream;

#[test]
fn a_thousand_entries_each_once() {
    for (name, rt) in support::runtimes() {
        let dir = Scratch::new(&format!("fs-read-dir-{name}"));
        let expected: BTreeSet<String> = (0..1000).map(|i| format!("f{i:04}")).collect();
        for n in &expected {
            std::fs::write(dir.join(n), n).unwrap();
        }
        std::fs::create_dir(dir.join("sub")).unwrap();
        rt.block_on(async {
            let mut seen = BTreeSet::new();
            let mut entries = rt::fs::read_dir(dir.path()).await.unwrap();
            let mut dirs = 0;
            while let Some(e) = entries.next_entry().await.unwrap() {
                let n = e.file_name().into_string().unwrap();
                assert_eq!(e.path(), dir.join(&n));
                if e.file_type().await.unwrap().is_dir() {
                    dirs += 1;
                    continue;
                }
                assert_eq!(e.metadata().await.unwrap().len(), n.len() as u64);
                assert!(seen.insert(n), "an entry came twice ({name})");
            }
            assert_eq!(dirs, 1);
            assert_eq!(seen, expected, "{name}");
            // The end stays the end.
            assert!(entries.next_entry().await.unwrap().is_none());

            let mut stream = rt::fs::read_dir(dir.path()).await.unwrap();
            let mut count = 0;
            while let Some(e) = poll_fn(|cx| Pin::new(&mut stream).poll_next(cx)).await {
                e.unwrap();
                count += 1;
            }
            assert_eq!(count, 1001, "{name}");
        });
    }
}

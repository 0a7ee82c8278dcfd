//! `rt::fs`'s one-shot functions round-trip through the disk on both flavours: write/read,
//! read_to_string, copy, rename, hard_link, metadata, canonicalize, create_dir(_all),
//! remove_dir(_all), remove_file, try_exists.

mod fs_support;
mod support;

use fs_support::Scratch;

#[test]
fn one_shot_functions_round_trip() {
    for (name, rt) in support::runtimes() {
        let dir = Scratch::new(&format!("fs-round-trip-{name}"));
        rt.block_on(async {
            let a = dir.join("a.bin");
            let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
            rt::fs::write(&a, &data).await.unwrap();
            assert_eq!(rt::fs::read(&a).await.unwrap(), data, "{name}");
            assert_eq!(rt::fs::metadata(&a).await.unwrap().len(), 100_000);

            rt::fs::write(&a, "text").await.unwrap();
            assert_eq!(rt::fs::read_to_string(&a).await.unwrap(), "text");

            let b = dir.join("b.txt");
            assert_eq!(rt::fs::copy(&a, &b).await.unwrap(), 4);
            let c = dir.join("c.txt");
            rt::fs::rename(&b, &c).await.unwrap();
            assert!(!rt::fs::try_exists(&b).await.unwrap());
            assert_eq!(rt::fs::read_to_string(&c).await.unwrap(), "text");
            let l = dir.join("link.txt");
            rt::fs::hard_link(&c, &l).await.unwrap();
            assert_eq!(rt::fs::metadata(&c).await.unwrap().len(), 4);

            let nested = dir.join("x/y/z");
            rt::fs::create_dir_all(&nested).await.unwrap();
            assert!(rt::fs::metadata(&nested).await.unwrap().is_dir());
            let canon = rt::fs::canonicalize(dir.join("x/y/../y/z")).await.unwrap();
            assert_eq!(canon, std::fs::canonicalize(&nested).unwrap());
            rt::fs::create_dir(nested.join("w")).await.unwrap();
            rt::fs::remove_dir(nested.join("w")).await.unwrap();
            rt::fs::write(nested.join("f"), b"1").await.unwrap();
            rt::fs::remove_dir_all(dir.join("x")).await.unwrap();
            assert!(!rt::fs::try_exists(dir.join("x")).await.unwrap());

            rt::fs::remove_file(&c).await.unwrap();
            rt::fs::remove_file(&l).await.unwrap();
            rt::fs::remove_file(&a).await.unwrap();
            assert!(!rt::fs::try_exists(&a).await.unwrap());
        });
    }
}

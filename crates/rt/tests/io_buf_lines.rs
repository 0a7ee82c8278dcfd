//! `rt::io::BufReader::lines` and `read_line` over an rt `TcpStream`: lines split across writes,
//! a last line without a newline, then the end.

mod support;

use rt::io::{AsyncBufReadExt, BufReader};
use rt::net::{TcpListener, TcpStream};

#[test]
fn lines_over_tcp() {
    support::deadline(|| {
        support::multi_thread(2).block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let writer = rt::spawn(async move {
                let mut s = TcpStream::connect(addr).await.unwrap();
                for piece in ["first li", "ne\nsecond\n", "\nthird ", "and last"] {
                    s.write_all(piece.as_bytes()).await.unwrap();
                    s.flush().await.unwrap();
                }
                s.shutdown().await.unwrap();
            });
            let (stream, _) = listener.accept().await.unwrap();
            let mut reader = BufReader::new(stream);
            let mut first = String::new();
            assert_eq!(reader.read_line(&mut first).await.unwrap(), 11);
            assert_eq!(first, "first line\n");
            let mut lines = reader.lines();
            let mut rest = Vec::new();
            while let Some(line) = lines.next_line().await.unwrap() {
                rest.push(line);
            }
            assert_eq!(rest, ["second", "", "third and last"]);
            writer.await.unwrap();
        })
    });
}

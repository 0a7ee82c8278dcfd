//! Recording an unnamed task's spawn location allocates nothing: once the frame pool and the
//! queues are warm, spawning and joining unnamed tasks makes no allocation at all, while each
//! named task makes two: its side record and the record's copy of the name.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: forwards to `System`, only counting calls on this thread.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> u64 {
    ALLOCS.with(Cell::get)
}

#[test]
fn unnamed_spawns_allocate_nothing_for_their_location() {
    let rt = rt::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        for _ in 0..3 {
            for _ in 0..64 {
                rt::spawn(async {}).await.unwrap();
            }
        }
        let before = allocs();
        for _ in 0..64 {
            let h = rt::spawn(async {});
            assert_eq!(h.spawn_location().file(), file!());
            h.await.unwrap();
        }
        assert_eq!(allocs() - before, 0, "unnamed spawns allocated");

        let before = allocs();
        for _ in 0..64 {
            let h = rt::task::Builder::new().name("n").spawn(async {}).unwrap();
            h.await.unwrap();
        }
        assert_eq!(
            allocs() - before,
            2 * 64,
            "a side record and a name per named task"
        );
    });
}

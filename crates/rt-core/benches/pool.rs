//! The frame pool, in each thread mode, against the global allocator. `pool` is the pool with the
//! bench thread in Recycling mode (a worker), `pool_transient` in Transient mode (a thread that
//! spawns from outside the runtime), `std` the global allocator.
//!
//! * `same_thread/{pool,pool_transient,std}/{128,1024}`: one alloc + one free of a 128 B or
//!   1 KiB layout on the same thread (the task spawned and completed on one worker).
//! * `same_thread_batch/{pool,pool_transient,std}/128`: 64 allocs, then 64 frees (many tasks in
//!   flight).
//! * `cross_thread/{pool,pool_transient,std}/128`: blocks allocated on the bench thread, sent in
//!   batches to a second thread that frees them (a task stolen and completed elsewhere, or
//!   spawned from outside); the time per block covers the alloc, the hand-off and the remote
//!   free, pipelined on two threads. In Transient mode it includes mapping and releasing a slab
//!   whenever the freer falls behind by a slab's worth.
//!
//! Run: `cargo bench -p rt-core --bench pool`.

use std::alloc::Layout;
use std::hint::black_box;
use std::ptr::NonNull;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion};
use rt_core::pool::{self, ThreadMode};

/// One allocator under test; static dispatch, so the hot paths inline as they do in task code.
trait Allocator: Send + 'static {
    const NAME: &'static str;
    /// Readies the bench thread (its pool mode) before the allocator is measured on it.
    fn enter() {}
    fn alloc(layout: Layout) -> NonNull<u8>;
    fn free(ptr: NonNull<u8>, layout: Layout);
}

/// The pool, the bench thread in Transient mode if `TRANSIENT`, else Recycling.
struct Pool<const TRANSIENT: bool>;

impl<const TRANSIENT: bool> Allocator for Pool<TRANSIENT> {
    const NAME: &'static str = if TRANSIENT { "pool_transient" } else { "pool" };

    fn enter() {
        pool::set_thread_mode(if TRANSIENT {
            ThreadMode::Transient
        } else {
            ThreadMode::Recycling
        });
    }

    #[inline]
    fn alloc(layout: Layout) -> NonNull<u8> {
        pool::alloc(layout)
    }

    #[inline]
    fn free(ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: `ptr` came from `pool::alloc(layout)` and is not used again.
        unsafe { pool::dealloc(ptr, layout) }
    }
}

struct Std;

impl Allocator for Std {
    const NAME: &'static str = "std";

    #[inline]
    fn alloc(layout: Layout) -> NonNull<u8> {
        // SAFETY: the layouts benchmarked have a non-zero size.
        NonNull::new(unsafe { std::alloc::alloc(layout) }).expect("out of memory")
    }

    #[inline]
    fn free(ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: `ptr` came from `std::alloc::alloc(layout)` and is not used again.
        unsafe { std::alloc::dealloc(ptr.as_ptr(), layout) }
    }
}

fn same_thread_one<A: Allocator>(group: &mut BenchmarkGroup<'_, WallTime>, size: usize) {
    A::enter();
    let layout = Layout::from_size_align(size, 8).unwrap();
    group.bench_with_input(BenchmarkId::new(A::NAME, size), &layout, |b, &layout| {
        b.iter(|| {
            let ptr = A::alloc(black_box(layout));
            // Touch the block, as a task spawn would.
            // SAFETY: the block is ours and at least 8 bytes.
            unsafe { ptr.as_ptr().cast::<u64>().write(1) };
            A::free(black_box(ptr), layout);
        })
    });
}

fn same_thread(c: &mut Criterion) {
    let mut group = c.benchmark_group("same_thread");
    for size in [128usize, 1024] {
        same_thread_one::<Pool<false>>(&mut group, size);
        same_thread_one::<Pool<true>>(&mut group, size);
        same_thread_one::<Std>(&mut group, size);
    }
    group.finish();
}

fn same_thread_batch_one<A: Allocator>(group: &mut BenchmarkGroup<'_, WallTime>) {
    const BATCH: usize = 64;
    A::enter();
    let layout = Layout::from_size_align(128, 8).unwrap();
    group.bench_function(BenchmarkId::new(A::NAME, 128), |b| {
        let mut blocks = Vec::with_capacity(BATCH);
        b.iter(|| {
            for _ in 0..BATCH {
                let ptr = A::alloc(black_box(layout));
                // SAFETY: the block is ours and at least 8 bytes.
                unsafe { ptr.as_ptr().cast::<u64>().write(1) };
                blocks.push(ptr);
            }
            for ptr in blocks.drain(..) {
                A::free(ptr, layout);
            }
        })
    });
}

fn same_thread_batch(c: &mut Criterion) {
    let mut group = c.benchmark_group("same_thread_batch");
    same_thread_batch_one::<Pool<false>>(&mut group);
    same_thread_batch_one::<Pool<true>>(&mut group);
    same_thread_batch_one::<Std>(&mut group);
    group.finish();
}

/// Raw block addresses, sent to the freeing thread.
struct Batch(Vec<usize>);

fn cross_thread_one<A: Allocator>(group: &mut BenchmarkGroup<'_, WallTime>) {
    const BATCH: usize = 256;
    A::enter();
    let layout = Layout::from_size_align(128, 8).unwrap();
    group.bench_function(BenchmarkId::new(A::NAME, 128), |b| {
        b.iter_custom(|iters| {
            let (tx, rx) = mpsc::sync_channel::<Batch>(4);
            let freer = thread::spawn(move || {
                for batch in rx {
                    for addr in batch.0 {
                        A::free(NonNull::new(addr as *mut u8).unwrap(), layout);
                    }
                }
            });
            let start = Instant::now();
            let mut left = iters as usize;
            while left > 0 {
                let n = left.min(BATCH);
                let mut batch = Vec::with_capacity(n);
                for _ in 0..n {
                    let ptr = A::alloc(black_box(layout));
                    // SAFETY: the block is ours and at least 8 bytes.
                    unsafe { ptr.as_ptr().cast::<u64>().write(1) };
                    batch.push(ptr.as_ptr() as usize);
                }
                tx.send(Batch(batch)).unwrap();
                left -= n;
            }
            drop(tx);
            freer.join().unwrap();
            let elapsed = start.elapsed();
            // Take back what the freer pushed, so the next sample starts alike.
            pool::trim();
            elapsed.max(Duration::from_nanos(1))
        })
    });
}

fn cross_thread(c: &mut Criterion) {
    let mut group = c.benchmark_group("cross_thread");
    cross_thread_one::<Pool<false>>(&mut group);
    cross_thread_one::<Pool<true>>(&mut group);
    cross_thread_one::<Std>(&mut group);
    group.finish();
}

criterion_group!(benches, same_thread, same_thread_batch, cross_thread);
criterion_main!(benches);

//! sqlx on rt: a SQLite pool (sqlx runs SQLite on worker threads and talks to them through
//! channels; the pool's timeouts are tokio timers).

use sqlx::sqlite::SqlitePoolOptions;
use sqlx::Row;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_pool() {
    let pool = SqlitePoolOptions::new()
        .max_connections(4)
        .acquire_timeout(std::time::Duration::from_secs(5))
        .connect("sqlite::memory:")
        .await
        .unwrap();
    sqlx::query("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)")
        .execute(&pool)
        .await
        .unwrap();
    let mut tasks = Vec::new();
    for i in 0..20i64 {
        let pool = pool.clone();
        tasks.push(tokio::spawn(async move {
            sqlx::query("SELECT ?1 * 2")
                .bind(i)
                .fetch_one(&pool)
                .await
                .unwrap()
                .get::<i64, _>(0)
        }));
    }
    let mut sum = 0;
    for task in tasks {
        sum += task.await.unwrap();
    }
    assert_eq!(sum, 380);
    let mut tx = pool.begin().await.unwrap();
    sqlx::query("INSERT INTO kv VALUES ('a', 1)")
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let v: i64 = sqlx::query_scalar("SELECT v FROM kv WHERE k = 'a'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(v, 1);
    pool.close().await;
}

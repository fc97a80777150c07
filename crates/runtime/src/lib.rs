//! What the server runs in the background, beside its HTTP edge: the review workers that
//! take tasks from the queue through the engine (`worker`), the preparer of the rounds
//! runners will claim (`preparer`), the scheduler of periodic jobs (`scheduler`), and two of
//! those jobs' own work: database backups (`backup`, `pg_dump`) and the retention of log
//! files (`logs`). The composition root (`reviewd-app`'s `startup` and `jobs`) starts them.

pub mod backup;
pub mod logs;
pub mod preparer;
pub mod scheduler;
pub mod worker;

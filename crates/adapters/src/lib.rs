//! The server's adapters that live in its process, one module per port: the system clock
//! (`Clock`), disk usage (`DiskUsage`), the host sampler (`SystemSampler`), the platform
//! clients chosen by a platform config (`PlatformClients`), the AI providers chosen by an AI
//! config with their concurrency limits (`AiProviders`), and the observer that hands a
//! finished review to the notifications (`ReviewObserver`). The composition root
//! (`reviewd-app`'s `startup`) wires them into the domain's services.

pub mod ai;
pub mod clock;
pub mod disk;
pub mod notify;
pub mod platforms;
pub mod sampler;

//! A task's time budget, checked between blocks. Natively a running call cannot be interrupted
//! from outside, so it stops itself; in WASM the host terminates the worker instead (V8 can
//! interrupt WASM), and there is no clock in wasm32-unknown-unknown.

#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    #[cfg(not(target_arch = "wasm32"))]
    end: Option<std::time::Instant>,
}

impl Deadline {
    /// No limit.
    pub fn none() -> Self {
        Self::after_ms(0.0)
    }

    /// `ms` milliseconds from now; 0 means no limit.
    #[cfg_attr(target_arch = "wasm32", allow(unused_variables))]
    pub fn after_ms(ms: f64) -> Self {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let end = (ms > 0.0).then(|| {
                std::time::Instant::now() + std::time::Duration::from_micros((ms * 1000.0) as u64)
            });
            Deadline { end }
        }
        #[cfg(target_arch = "wasm32")]
        Deadline {}
    }

    pub fn passed(&self) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        {
            self.end
                .map_or(false, |end| std::time::Instant::now() >= end)
        }
        #[cfg(target_arch = "wasm32")]
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn budgets_expire() {
        assert!(!Deadline::none().passed());
        assert!(!Deadline::after_ms(60_000.0).passed());
        let d = Deadline::after_ms(1.0);
        std::thread::sleep(std::time::Duration::from_millis(3));
        assert!(d.passed());
    }
}

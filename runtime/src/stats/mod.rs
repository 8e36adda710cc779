//! Deterministic launch counters and translation statistics.
//!
//! [`Counters`] aggregates the per-wave [`WaveCounters`] that executed code maintains; both
//! engines produce identical values for the same launch (they count the same lifted
//! instructions), so the counters can be compared across builds and engines.

use serde::Serialize;
use wavejit_translator::wave::{InstClass, WaveCounters};

/// A launch's translation work ([`TranslationStats::since`] over the launch).
pub use wavejit_translator::exec::TranslationStats;

/// Wave-instruction counts by class, vector instructions and active lanes of a launch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Scalar ALU instructions.
    pub salu: u64,
    /// Vector ALU instructions (matrix excluded).
    pub valu: u64,
    /// Scalar memory instructions.
    pub smem: u64,
    /// Vector memory instructions.
    pub vmem: u64,
    /// LDS instructions.
    pub lds: u64,
    /// Branches, barriers, waits and other program control.
    pub control: u64,
    /// Matrix (MFMA/WMMA) instructions.
    pub matrix: u64,
    /// Vector instructions executed (VALU, VMEM, LDS, matrix).
    pub vector_insts: u64,
    /// Sum of active lanes over the vector instructions.
    pub active_lanes: u64,
}

impl Counters {
    /// All wave instructions: the sum of the seven classes.
    pub fn wave_insts(&self) -> u64 {
        self.salu + self.valu + self.smem + self.vmem + self.lds + self.control + self.matrix
    }

    /// Adds one wave's counters.
    pub fn add_wave(&mut self, w: &WaveCounters) {
        let c = |k: InstClass| w.by_class[k as usize];
        self.salu += c(InstClass::Salu);
        self.valu += c(InstClass::Valu);
        self.smem += c(InstClass::Smem);
        self.vmem += c(InstClass::Vmem);
        self.lds += c(InstClass::Lds);
        self.control += c(InstClass::Control);
        self.matrix += c(InstClass::Matrix);
        self.vector_insts += w.vector_insts;
        self.active_lanes += w.active_lanes;
    }

    /// Adds another launch's (or thread's) counters.
    pub fn add(&mut self, o: &Counters) {
        self.salu += o.salu;
        self.valu += o.valu;
        self.smem += o.smem;
        self.vmem += o.vmem;
        self.lds += o.lds;
        self.control += o.control;
        self.matrix += o.matrix;
        self.vector_insts += o.vector_insts;
        self.active_lanes += o.active_lanes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregation_sums_classes_and_lanes() {
        let w = WaveCounters {
            by_class: [1, 2, 3, 4, 5, 6, 7],
            vector_insts: 18,
            active_lanes: 18 * 64,
        };
        let mut c = Counters::default();
        c.add_wave(&w);
        c.add_wave(&w);
        assert_eq!((c.salu, c.matrix, c.control), (2, 14, 12));
        assert_eq!(c.wave_insts(), 2 * 28);
        assert_eq!(c.active_lanes, 2 * 18 * 64);
        let mut d = Counters::default();
        d.add(&c);
        assert_eq!(d, c);
        let b = TranslationStats {
            blocks_lifted: 3,
            blocks_compiled: 1,
            cache_hits: 10,
            translate_ns: 5,
            blocks_awaiting_optimised: 4,
        };
        let a = TranslationStats {
            blocks_lifted: 5,
            blocks_compiled: 1,
            cache_hits: 30,
            translate_ns: 9,
            blocks_awaiting_optimised: 1,
        };
        let t = a.since(&b);
        assert_eq!(
            (
                t.blocks_lifted,
                t.blocks_compiled,
                t.cache_hits,
                t.translate_ns,
                t.blocks_awaiting_optimised
            ),
            (2, 0, 20, 4, 1)
        );
    }
}

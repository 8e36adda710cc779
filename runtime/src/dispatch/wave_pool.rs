//! Wave states kept between launches.
//!
//! A [`WaveState`] is ~130 KiB: allocating (and page-faulting) one per wave slot of every
//! worker thread at every launch costs more than a short launch's waves. Workers take their
//! slots from this pool and give them back when the launch ends. A state taken from the
//! pool is cleared whole ([`reset_wave`] with no register counts), so every launch starts
//! from zeroed states as with fresh allocations.

use std::sync::Mutex;

use wavejit_translator::wave::WaveState;

use super::wave_init::reset_wave;

/// States kept at most (8 MiB): the waves of two threads running 1024-work-item wave32
/// workgroups.
const KEEP: usize = 64;

static POOL: Mutex<Vec<Box<WaveState>>> = Mutex::new(Vec::new());

/// `n` zeroed wave states of `wave_size` lanes, from the pool where it has some.
pub fn take(n: usize, wave_size: u32) -> Vec<Box<WaveState>> {
    let mut out = {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        let at = pool.len().saturating_sub(n);
        pool.split_off(at)
    };
    for st in &mut out {
        reset_wave(st, wave_size, 0, 0);
        st.credit = 0;
    }
    out.resize_with(n, || WaveState::new_boxed(wave_size));
    out
}

/// Returns states to the pool (those beyond its capacity are freed).
pub fn give(states: impl IntoIterator<Item = Box<WaveState>>) {
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    for st in states {
        if pool.len() >= KEEP {
            break;
        }
        pool.push(st);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reused_states_come_back_zeroed() {
        let mut a = take(3, 64);
        for st in &mut a {
            st.vgpr[300][5] = 7;
            st.sgpr[10] = 9;
            st.pc = 0x1234;
            st.counters.vector_insts = 3;
        }
        give(a);
        // Other tests may share the pool: whatever comes back must be zeroed.
        let b = take(5, 32);
        assert_eq!(b.len(), 5);
        for st in &b {
            assert_eq!(st.wave_size, 32);
            assert_eq!(st.vgpr[300][5], 0);
            assert_eq!(st.sgpr[10], 0);
            assert_eq!(st.pc, 0);
            assert_eq!(st.counters.vector_insts, 0);
        }
        give(b);
    }
}

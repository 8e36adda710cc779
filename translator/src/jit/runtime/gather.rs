//! The whole-wave form of an inline gather (`jit::lower::memory::gather`): a vector load of
//! 1, 2 or 4 bytes per lane into 32-bit lanes, every active lane's address inside one
//! memory window, done with AVX-512 gathers eight lanes at a time. Generated code calls
//! [`h_gather32`] only when the host has AVX-512F ([`available`]); when it returns 1 (a lane
//! outside the window, or a window too short for its dword reads) the generated per-lane
//! path runs instead, which decides exactly as before.

/// Whether generated code may call [`h_gather32`] on this host.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The `code` argument of [`h_gather32`]: the access size (1, 2 or 4), bit 8 set for a
/// sign-extending load, bit 9 for a wave of 32 lanes.
pub fn gather_code(size: u8, signed: bool, wave32: bool) -> u32 {
    u32::from(size) | u32::from(signed) << 8 | u32::from(wave32) << 9
}

/// Loads lane `l`'s `size` bytes at `host + (addrs[l] - start)` into `out[l]` (zero- or
/// sign-extended; 0 for a lane outside `mask`), for the lanes of the wave, and returns 0 —
/// when every active lane's offset `addrs[l] - start` is at most `lim` (the last offset at
/// which `size` bytes fit in the window) and its dword read fits too. Otherwise returns 1
/// and `out` holds unspecified values. Each lane reads the 4 bytes at its offset (a gather
/// of dwords), which is why a lane within 3 bytes of the window's end takes the other path.
///
/// # Safety
/// `addrs` holds the wave's lanes of `u64` addresses, `out` as many `u32`s; `host` is
/// readable for `lim + size` bytes (the window `[start, start + lim + size)`); the host
/// has AVX-512F ([`available`]); `code` is [`gather_code`]'s.
pub unsafe extern "C" fn h_gather32(
    addrs: *const u64,
    mask: u64,
    start: u64,
    lim: u64,
    host: *const u8,
    out: *mut u32,
    code: u32,
) -> u32 {
    let size = u64::from(code & 0xff);
    // Dword reads: the last offset at which 4 bytes fit.
    let Some(lim4) = lim.checked_add(size).and_then(|x| x.checked_sub(4)) else {
        return 1;
    };
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the caller's contract (AVX-512F present, the buffers and window).
        unsafe { avx512::gather(addrs, mask, start, lim4, host, out, code) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (addrs, mask, start, lim4, host, out);
        1
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// [`super::h_gather32`] with `lim4` the last offset at which 4 bytes fit.
    ///
    /// # Safety
    /// As [`super::h_gather32`].
    #[target_feature(enable = "avx512f,avx2")]
    pub(super) unsafe fn gather(
        addrs: *const u64,
        mask: u64,
        start: u64,
        lim4: u64,
        host: *const u8,
        out: *mut u32,
        code: u32,
    ) -> u32 {
        let lanes = if code >> 9 & 1 != 0 { 32 } else { 64 };
        // Shift pairs that keep the low `size` bytes of a dword, zero- or sign-extended.
        let sh = 32 - 8 * (code & 0xff).min(4);
        let signed = code >> 8 & 1 != 0;
        let vstart = _mm512_set1_epi64(start as i64);
        let vlim = _mm512_set1_epi64(lim4 as i64);
        // Every chunk is checked before any is loaded (nothing is read outside the window).
        for c in (0..lanes).step_by(8) {
            let k = (mask >> c) as u8;
            // SAFETY: `addrs` holds `lanes` u64s (contract); `c + 8 <= lanes`.
            let a = unsafe { _mm512_loadu_si512(addrs.add(c).cast()) };
            let off = _mm512_sub_epi64(a, vstart);
            if _mm512_mask_cmpgt_epu64_mask(k, off, vlim) != 0 {
                return 1;
            }
        }
        let (vsh, zero) = (_mm256_set1_epi32(sh as i32), _mm256_setzero_si256());
        for c in (0..lanes).step_by(8) {
            let k = (mask >> c) as u8;
            // SAFETY: as above.
            let a = unsafe { _mm512_loadu_si512(addrs.add(c).cast()) };
            let off = _mm512_sub_epi64(a, vstart);
            // SAFETY: every active lane's offset is at most `lim4`, so its 4 bytes lie in
            // the window the caller vouches for; inactive lanes read nothing (masked).
            let x = unsafe { _mm512_mask_i64gather_epi32::<1>(zero, k, off, host.cast()) };
            let x = _mm256_sllv_epi32(x, vsh);
            let x = if signed {
                _mm256_srav_epi32(x, vsh)
            } else {
                _mm256_srlv_epi32(x, vsh)
            };
            // SAFETY: `out` holds `lanes` u32s (contract).
            unsafe { _mm256_storeu_si256(out.add(c).cast(), x) };
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lane values as a host computation reads them: `size` bytes little-endian at
    /// `off[l]`, extended; 0 outside `mask`.
    fn reference(mem: &[u8], off: &[u64; 64], mask: u64, size: usize, signed: bool) -> Vec<u32> {
        (0..64)
            .map(|l| {
                if mask >> l & 1 == 0 {
                    return 0;
                }
                let o = off[l] as usize;
                let mut x = 0u32;
                for (i, b) in mem[o..o + size].iter().enumerate() {
                    x |= u32::from(*b) << (8 * i);
                }
                let sh = 32 - 8 * size as u32;
                if signed {
                    ((x << sh) as i32 >> sh) as u32
                } else {
                    x
                }
            })
            .collect()
    }

    #[test]
    fn whole_wave_gathers_match_a_host_computation_or_decline() {
        if !available() {
            // Generated code never calls the helper on this host (`gather::available`).
            return;
        }
        const START: u64 = 0x7000_0000_1000;
        let mem: Vec<u8> = (0..4096u32).map(|i| (i * 157 + 0x5b) as u8).collect();
        let len = mem.len() as u64;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for size in [1u8, 2, 4] {
            let lim = len - u64::from(size);
            for signed in [false, true] {
                for wave32 in [false, true] {
                    for mask in [u64::MAX, 0x8000_0001_F0F0_1235, 1, 0] {
                        let code = gather_code(size, signed, wave32);
                        let lanes = if wave32 { 32 } else { 64 };
                        let wmask = mask & (u64::MAX >> (64 - lanes));
                        // Inside, away from the end: gathered.
                        let off: [u64; 64] = std::array::from_fn(|_| rnd() % (len - 3));
                        let addrs: [u64; 64] = std::array::from_fn(|l| START + off[l]);
                        let mut out = [0xDEAD_BEEFu32; 64];
                        // SAFETY: 64 lanes of addresses and results; `mem` is the window
                        // `[START, START + len)`; AVX-512F checked above.
                        let rc = unsafe {
                            h_gather32(
                                addrs.as_ptr(),
                                wmask,
                                START,
                                lim,
                                mem.as_ptr(),
                                out.as_mut_ptr(),
                                code,
                            )
                        };
                        assert_eq!(rc, 0);
                        let want = reference(&mem, &off, wmask, size as usize, signed);
                        assert_eq!(out[..lanes], want[..lanes], "{size} {signed} {mask:#x}");
                        assert!(out[lanes..].iter().all(|&x| x == 0xDEAD_BEEF));
                        // One active lane within 3 bytes of the end, past it, or below the
                        // start: declined; an inactive one there: gathered.
                        for bad in [len - u64::from(size), len, u64::MAX - 7] {
                            let Some(l) = (0..lanes).find(|&l| wmask >> l & 1 != 0) else {
                                continue;
                            };
                            let mut a = addrs;
                            a[l] = START.wrapping_add(bad);
                            // SAFETY: as above.
                            let call = |m: u64, out: &mut [u32; 64]| unsafe {
                                h_gather32(
                                    a.as_ptr(),
                                    m,
                                    START,
                                    lim,
                                    mem.as_ptr(),
                                    out.as_mut_ptr(),
                                    code,
                                )
                            };
                            let declined = size < 4 || bad >= len;
                            assert_eq!(call(wmask, &mut out), u32::from(declined), "{bad:#x}");
                            assert_eq!(call(wmask & !(1 << l), &mut out), 0, "{bad:#x}");
                        }
                    }
                }
            }
        }
    }
}

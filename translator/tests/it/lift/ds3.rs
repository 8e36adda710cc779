//! DS instructions beyond plain reads/writes/atomics: `wrxchg2`(st64), `condxchg32`, `mskor`,
//! `wrap`, `rsub`, packed f16/bf16 adds, `ds_append`/`ds_consume`, `addtid` addressing. Expected values come from a sequential model written here from the ISA
//! pseudocode (lanes in ascending order, so lanes hitting one address see each other's
//! updates); every block also runs in the JIT, which must agree with the interpreter.

#![allow(clippy::needless_range_loop)] // lane loops index several arrays

use crate::lift_support::*;

const LDS: usize = 0x2000;
const M0: u32 = 0x1800;

/// Sequential LDS model.
struct Model(Vec<u8>);

impl Model {
    fn get(&self, a: usize, n: usize) -> u64 {
        let mut x = [0u8; 8];
        x[..n].copy_from_slice(&self.0[a..a + n]);
        u64::from_le_bytes(x)
    }
    fn put(&mut self, a: usize, n: usize, v: u64) {
        self.0[a..a + n].copy_from_slice(&v.to_le_bytes()[..n]);
    }
    /// Read-modify-write at `a`; returns the old value.
    fn rmw(&mut self, a: usize, n: usize, f: impl FnOnce(u64) -> u64) -> u64 {
        let old = self.get(a, n);
        let mask = if n == 8 { u64::MAX } else { (1 << (8 * n)) - 1 };
        self.put(a, n, f(old) & mask);
        old
    }
}

/// f16 bits of an f64 that f16 represents exactly (normal numbers and zero).
fn f16_exact(x: f64) -> u32 {
    if x == 0.0 {
        return 0;
    }
    let sign = if x < 0.0 { 0x8000 } else { 0 };
    let a = x.abs();
    let e = a.log2().floor() as i32;
    let m = a / 2f64.powi(e) - 1.0; // in [0, 1)
    let mant = m * 1024.0;
    assert_eq!(mant.fract(), 0.0, "{x} is not exact in f16");
    sign | ((e + 15) as u32) << 10 | mant as u32
}

fn f16_value(h: u32) -> f64 {
    let e = (h >> 10 & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    let v = if e == 0 {
        m * 2f64.powi(-24)
    } else {
        (1.0 + m / 1024.0) * 2f64.powi(e - 15)
    };
    if h & 0x8000 != 0 {
        -v
    } else {
        v
    }
}

#[test]
fn ds_exchange_mask_wrap_packed_append_addtid() {
    #[rustfmt::skip]
    let words = [
        0xd85c0301, 0x06090800, // ds_wrxchg2_rtn_b32 v[6:7], v0, v8, v9 offset0:1 offset1:3
        0xd8de0201, 0x0a100e14, // ds_wrxchg2st64_rtn_b64 v[10:13], v20, v[14:15], v[16:17] offset0:1 offset1:2
        0xd8fc0008, 0x12001600, // ds_condxchg32_rtn_b64 v[18:19], v0, v[22:23] offset:8
        0xd8580004, 0x181b1a19, // ds_mskor_rtn_b32 v24, v25, v26, v27 offset:4
        0xd8680100, 0x1c1e1d00, // ds_wrap_rtn_b32 v28, v0, v29, v30 offset:256
        0xd8440200, 0x1f002000, // ds_rsub_rtn_u32 v31, v0, v32 offset:512
        0xd96e0000, 0x21002322, // ds_pk_add_rtn_f16 v33, v34, v35
        0xd8300000, 0x00002524, // ds_pk_add_bf16 v36, v37
        0xd97c0004, 0x26000000, // ds_append v38 offset:4
        0xd97a0008, 0x27000000, // ds_consume v39 offset:8
        0xd96c0010, 0x28000000, // ds_read_addtid_b32 v40 offset:16
        0xd83a0200, 0x00002900, // ds_write_addtid_b32 v41 offset:512
        0xd8980008, 0x002e2c2a, // ds_mskor_b64 v42, v[44:45], v[46:47] offset:8
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(LDS);
    // Known halves for the packed adds: f16 at 0xe80 (4 dwords shared by lanes l % 4),
    // bf16 at 0xf00 (one dword per lane).
    for i in 0..4 {
        let lo = f16_exact(1.5 + i as f64);
        let hi = f16_exact(-2.0 * (i + 1) as f64);
        mem.lds[0xe80 + 4 * i..0xe84 + 4 * i].copy_from_slice(&(lo | hi << 16).to_le_bytes());
    }
    for l in 0..64u32 {
        let v: u32 = (0x3f80 | (l & 1)) | 0xc000 << 16; // {1.0 or 1.0078125, -2.0}
        mem.lds[0xf00 + 4 * l as usize..0xf04 + 4 * l as usize].copy_from_slice(&v.to_le_bytes());
    }
    mem.lds[0x1804..0x1808].copy_from_slice(&100u32.to_le_bytes());
    mem.lds[0x1808..0x180c].copy_from_slice(&50u32.to_le_bytes());
    let lds0 = mem.lds.clone();
    let (b, a) = run_words(&words, 21, exec, &mut mem, |s| {
        s.sgpr[124] = M0;
        for l in 0..64 {
            s.vgpr[0][l] = 0x100 + 16 * l as u32;
            s.vgpr[20][l] = 0x800 + 8 * l as u32;
            s.vgpr[25][l] = 0x40; // every lane on one address
            s.vgpr[34][l] = 0xe80 + 4 * (l as u32 % 4);
            s.vgpr[35][l] = f16_exact(l as f64) | f16_exact(0.5 * l as f64) << 16;
            s.vgpr[36][l] = 0xf00 + 4 * l as u32;
            s.vgpr[37][l] = 0x3b80 | 0x3f80 << 16; // {2^-8, 1.0}
            s.vgpr[42][l] = 0x1c00 + 8 * (l as u32 % 8);
            // condxchg: bit 31 of the low dword set in even lanes, of the high one when l % 3 == 0.
            s.vgpr[22][l] =
                (s.vgpr[22][l] & 0x7fff_ffff) | ((l as u32).is_multiple_of(2) as u32) << 31;
            s.vgpr[23][l] =
                (s.vgpr[23][l] & 0x7fff_ffff) | ((l as u32).is_multiple_of(3) as u32) << 31;
            // wrap: make both branches occur.
            if l % 2 == 0 {
                s.vgpr[29][l] = 0;
            }
        }
    });
    let act: Vec<usize> = (0..64).filter(|l| exec >> l & 1 != 0).collect();
    let v = |r: usize, l: usize| b.vgpr[r][l];
    let v64 = |r: usize, l: usize| b.vgpr[r][l] as u64 | (b.vgpr[r + 1][l] as u64) << 32;
    let mut m = Model(lds0);
    let mut want = clone_state(&b);
    // Apply every instruction to the model, lane by lane in ascending order.
    for &l in &act {
        let a0 = (v(0, l) + 4) as usize;
        let a1 = (v(0, l) + 12) as usize;
        let t0 = m.rmw(a0, 4, |_| v(8, l) as u64);
        let t1 = m.rmw(a1, 4, |_| v(9, l) as u64);
        want.vgpr[6][l] = t0 as u32;
        want.vgpr[7][l] = t1 as u32;
    }
    for &l in &act {
        let a0 = (v(20, l) + 512) as usize;
        let a1 = (v(20, l) + 1024) as usize;
        let t0 = m.rmw(a0, 8, |_| v64(14, l));
        let t1 = m.rmw(a1, 8, |_| v64(16, l));
        for (i, t) in [t0, t1].into_iter().enumerate() {
            want.vgpr[10 + 2 * i][l] = t as u32;
            want.vgpr[11 + 2 * i][l] = (t >> 32) as u32;
        }
    }
    for &l in &act {
        let a0 = ((v(0, l) + 8) & 0xfff8) as usize;
        for i in 0..2 {
            let d = v(22 + i, l);
            let t = m.rmw(a0 + 4 * i, 4, |old| {
                if d >> 31 != 0 {
                    (d & 0x7fff_ffff) as u64
                } else {
                    old
                }
            });
            want.vgpr[18 + i][l] = t as u32;
        }
    }
    for &l in &act {
        let t = m.rmw(0x44, 4, |old| (old & !(v(26, l) as u64)) | v(27, l) as u64);
        want.vgpr[24][l] = t as u32;
    }
    for &l in &act {
        let (d, d2) = (v(29, l) as u64, v(30, l) as u64);
        let t = m.rmw((v(0, l) + 256) as usize, 4, |old| {
            if old >= d {
                old - d
            } else {
                old.wrapping_add(d2)
            }
        });
        want.vgpr[28][l] = t as u32;
    }
    for &l in &act {
        let t = m.rmw((v(0, l) + 512) as usize, 4, |old| {
            (v(32, l) as u64).wrapping_sub(old)
        });
        want.vgpr[31][l] = t as u32;
    }
    for &l in &act {
        let t = m.rmw(v(34, l) as usize, 4, |old| {
            let d = v(35, l) as u64;
            let half = |sh: u32| {
                let s =
                    f16_value((old >> sh) as u32 & 0xffff) + f16_value((d >> sh) as u32 & 0xffff);
                f16_exact(s) as u64
            };
            half(0) | half(16) << 16
        });
        want.vgpr[33][l] = t as u32;
    }
    for &l in &act {
        // {1.0 + 2^-8 → 1.0 (tie to even), 1.0078125 + 2^-8 → 1.015625 (tie to even)},
        // {-2.0 + 1.0 = -1.0}.
        let lo = if l % 2 == 0 { 0x3f80 } else { 0x3f82 };
        m.rmw(v(36, l) as usize, 4, |_| lo | 0xbf80 << 16);
    }
    let n = act.len() as u64;
    let c = m.rmw(0x1804, 4, |old| old + n);
    assert_eq!(c, 100);
    let c2 = m.rmw(0x1808, 4, |old| old - n);
    assert_eq!(c2, 50);
    for &l in &act {
        want.vgpr[38][l] = 100;
        want.vgpr[39][l] = 50;
        want.vgpr[40][l] = m.get(0x1810 + 4 * l, 4) as u32;
    }
    for &l in &act {
        m.put(0x1a00 + 4 * l, 4, v(41, l) as u64);
    }
    for &l in &act {
        let a = (v(42, l) + 8) as usize;
        m.rmw(a, 8, |old| (old & !v64(44, l)) | v64(46, l));
    }
    assert!(m.0 == mem.lds, "LDS differs from the model");
    for r in 0..64 {
        check_vgpr(&b, &a, r, exec, |l| want.vgpr[r][l]);
    }
    // The model exercised both condxchg outcomes and both wrap branches.
    assert!(act.iter().any(|&l| l % 2 == 0) && act.iter().any(|&l| l % 2 == 1));
}

#[test]
fn append_with_exec_zero_changes_nothing() {
    #[rustfmt::skip]
    let words = [
        0xd97c0004, 0x26000000, // ds_append v38 offset:4
        0xbf810000, // s_endpgm
    ];
    let mut mem = Mem::new(LDS);
    let lds0 = mem.lds.clone();
    let (b, a) = run_words(&words, 5, 0, &mut mem, |s| s.sgpr[124] = M0);
    assert!(mem.lds == lds0);
    check_vgpr(&b, &a, 38, 0, |_| 0);
}

/// gfx950 transposing LDS reads, set up as the 16-lane tiles LLVM/Triton describe: b16 — a
/// 16 (M) × 4 (K) tile stored M-contiguous, lane 4k + q addressing M = 4q..4q+3 of column k,
/// and afterwards lane m holding row m (K = 0..3); b8 — a 16 × 8 byte tile, lane 2k + h
/// addressing M = 8h..8h+7 of column k, afterwards lane m holding row m (K = 0..7).
#[test]
fn transposing_reads_gfx950() {
    #[rustfmt::skip]
    let words = [
        0xd9c60010, 0x02000000, // ds_read_b64_tr_b16 v[2:3], v0 offset:16
        0xd9c40000, 0x04000001, // ds_read_b64_tr_b8 v[4:5], v1
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xbf810000, // s_endpgm
    ];
    let exec = EXEC_PARTIAL;
    let mut mem = Mem::new(0x1000);
    let mut rng = Rng(31);
    for b in mem.lds.iter_mut() {
        *b = rng.next() as u8;
    }
    let lds = mem.lds.clone();
    // Tile bases per 16-lane group (b16 tiles are 128 bytes, b8 tiles 128 bytes).
    let b16_base = |g: usize| 0x100 + 0x100 * g;
    let b8_base = |g: usize| 0x800 + 0x100 * g;
    let code = Code::from_words(&words);
    let mut st = random_state(4, exec);
    for l in 0..64 {
        let (g, j) = (l / 16, l % 16);
        // b16: element (m, k) at base + 2 (m + 16 k); lane j = 4k + q → m = 4q.
        st.vgpr[0][l] = (b16_base(g) + 2 * (4 * (j % 4) + 16 * (j / 4))) as u32 - 16;
        // b8: byte (m, k) at base + m + 16 k; lane j = 2k + h → m = 8h.
        st.vgpr[1][l] = (b8_base(g) + 8 * (j % 2) + 16 * (j / 2)) as u32;
    }
    let before = clone_state(&st);
    let t = wavejit_translator::isa::Target::new(wavejit_translator::isa::Gpu::GFX950);
    let r = run_on(&t, &code, &mut st, &mut mem).expect("runs");
    assert_eq!(r, wavejit_translator::env::ExitCode::EndPgm);
    let e16 = |g: usize, m: usize, k: usize| {
        let o = b16_base(g) + 2 * (m + 16 * k);
        lds[o] as u32 | (lds[o + 1] as u32) << 8
    };
    let e8 = |g: usize, m: usize, k: usize| lds[b8_base(g) + m + 16 * k] as u32;
    check_vgpr(&before, &st, 2, exec, |l| {
        e16(l / 16, l % 16, 0) | e16(l / 16, l % 16, 1) << 16
    });
    check_vgpr(&before, &st, 3, exec, |l| {
        e16(l / 16, l % 16, 2) | e16(l / 16, l % 16, 3) << 16
    });
    check_vgpr(&before, &st, 4, exec, |l| {
        (0..4).fold(0, |v, k| v | e8(l / 16, l % 16, k) << (8 * k))
    });
    check_vgpr(&before, &st, 5, exec, |l| {
        (0..4).fold(0, |v, k| v | e8(l / 16, l % 16, 4 + k) << (8 * k))
    });
}

/// Element `i` of `bits` bits of a little-endian packed byte array (nibbles low first; 6-bit
/// values densely, as rocRoller's `packFP4x8`/`packF6x16`).
fn packed_elem(bytes: &[u8], bits: usize, i: usize) -> u32 {
    let bit = bits * i;
    let w = bytes[bit / 8] as u32 | (*bytes.get(bit / 8 + 1).unwrap_or(&0) as u32) << 8;
    w >> (bit % 8) & ((1 << bits) - 1)
}

/// gfx950 `ds_read_b64_tr_b4`, `ds_read_b96_tr_b6` (and `_b8` again) checked by replaying
/// AMD's rocRoller hardware test `TransposeLoadsTest`: a 16 × 128 (b8: 16 × 64) row-major
/// matrix of random elements packed into LDS (b6: each 12-byte chunk in a 16-byte slot), lane
/// `16x + y` addressing unit `32x + y` (units of 8 bytes, b6 16 bytes) and unit `32x + y + 16`
/// (second load, through the offset); the registers stored as rocRoller does (load t,
/// register r of lane L at dword `(2t + r)·64 + L`; b6: 12-byte chunk `64t + L`) must satisfy
/// rocRoller's index identities. Inactive lanes keep their registers.
#[test]
fn transposing_sub_byte_reads_match_rocroller_gfx950() {
    #[rustfmt::skip]
    let words = [
        0xd9c00000, 0x02000000, // ds_read_b64_tr_b4 v[2:3], v0
        0xd9c00080, 0x04000000, // ds_read_b64_tr_b4 v[4:5], v0 offset:128
        0xd9c20000, 0x06000001, // ds_read_b96_tr_b6 v[6:8], v1
        0xd9c20100, 0x09000001, // ds_read_b96_tr_b6 v[9:11], v1 offset:256
        0xd9c40000, 0x0c000014, // ds_read_b64_tr_b8 v[12:13], v20
        0xd9c40080, 0x0e000014, // ds_read_b64_tr_b8 v[14:15], v20 offset:128
        0xbf8cc07f, // s_waitcnt lgkmcnt(0)
        0xbf810000, // s_endpgm
    ];
    let (b4_base, b6_base, b8_base) = (0usize, 0x400usize, 0xc00usize);
    let mut rng = Rng(6464);
    let mut mem = Mem::new(0x1000);
    // b4: 16 x 128 nibbles = 1024 bytes; b6: 16 x 128 6-bit values = 128 chunks of 12 bytes,
    // chunk c at b6_base + 16c; b8: 16 x 64 bytes.
    let b4: Vec<u8> = (0..1024).map(|_| rng.next() as u8).collect();
    let b6: Vec<u8> = (0..1536).map(|_| rng.next() as u8).collect();
    let b8: Vec<u8> = (0..1024).map(|_| rng.next() as u8).collect();
    mem.lds[b4_base..b4_base + 1024].copy_from_slice(&b4);
    for c in 0..128 {
        let at = b6_base + 16 * c;
        mem.lds[at..at + 12].copy_from_slice(&b6[12 * c..12 * c + 12]);
    }
    mem.lds[b8_base..b8_base + 1024].copy_from_slice(&b8);
    let exec = EXEC_PARTIAL;
    let code = Code::from_words(&words);
    let mut st = random_state(12, exec);
    for l in 0..64 {
        let idx = 32 * (l / 16) + l % 16;
        st.vgpr[0][l] = (b4_base + 8 * idx) as u32;
        st.vgpr[1][l] = (b6_base + 16 * idx) as u32;
        st.vgpr[20][l] = (b8_base + 8 * idx) as u32;
    }
    let before = clone_state(&st);
    let t = wavejit_translator::isa::Target::new(wavejit_translator::isa::Gpu::GFX950);
    let r = run_on(&t, &code, &mut st, &mut mem).expect("runs");
    assert_eq!(r, wavejit_translator::env::ExitCode::EndPgm);
    let active = |l: usize| exec >> l & 1 != 0;
    for l in (0..64).filter(|&l| !active(l)) {
        for reg in 2..16 {
            assert_eq!(
                st.vgpr[reg][l], before.vgpr[reg][l],
                "v{reg} lane {l} inactive"
            );
        }
    }
    // rocRoller's result buffer: dword (2t + r)·64 + L holds register r of load t of lane L.
    let result_bytes = |regs: [usize; 2], per: usize| -> Vec<Option<u8>> {
        let mut out = vec![None; 2 * per * 64 * 4];
        for (t, &first) in regs.iter().enumerate() {
            for r in 0..per {
                for l in (0..64).filter(|&l| active(l)) {
                    let d = st.vgpr[first + r][l].to_le_bytes();
                    let at = ((per * t + r) * 64 + l) * 4;
                    for (k, b) in d.iter().enumerate() {
                        out[at + k] = Some(*b);
                    }
                }
            }
        }
        out
    };
    // b4 and b8: data[(w·NZ + z)·NX·NY + x·NY + y] == result[(z·NW + w)·NX·NY + y·NX + x].
    for (bits, regs, data) in [(4usize, [2, 4], &b4), (8, [12, 14], &b8)] {
        let res = result_bytes(regs, 2);
        let (nw, nz, nx) = (4, 4, 32 / bits);
        let ny = (if bits == 4 { 128 } else { 64 }) / nx;
        let mut checked = 0;
        for z in 0..nz {
            for w in 0..nw {
                for x in 0..nx {
                    for y in 0..ny {
                        let ri = (z * nw + w) * nx * ny + y * nx + x;
                        let byte = bits * ri / 8;
                        let Some(b) = res[byte] else { continue };
                        let got = if bits == 8 {
                            b as u32
                        } else {
                            (b as u32) >> (4 * (ri % 2)) & 0xf
                        };
                        let di = (w * nz + z) * nx * ny + x * ny + y;
                        assert_eq!(got, packed_elem(data, bits, di), "b{bits} result {ri}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 400, "b{bits}: only {checked} elements checked");
    }
    // b6: 12-byte chunk 64t + L; data[(4t + 2z + w)·256 + 16x + y] == result[(4w + 2t + z)·256
    // + 16y + x] (t, z, w < 2; x, y < 16).
    let mut res6 = vec![None; 2 * 64 * 12];
    for (t, first) in [6usize, 9].into_iter().enumerate() {
        for l in (0..64).filter(|&l| active(l)) {
            for r in 0..3 {
                for (k, b) in st.vgpr[first + r][l].to_le_bytes().iter().enumerate() {
                    res6[(64 * t + l) * 12 + 4 * r + k] = Some(*b);
                }
            }
        }
    }
    let mut checked = 0;
    for t in 0..2 {
        for w in 0..2 {
            for z in 0..2 {
                for x in 0..16 {
                    for y in 0..16 {
                        let ri = (4 * w + 2 * t + z) * 256 + 16 * y + x;
                        let (lo, hi) = (6 * ri / 8, 6 * ri / 8 + 1);
                        let (Some(b0), b1) = (res6[lo], res6.get(hi).copied().flatten()) else {
                            continue;
                        };
                        let got =
                            (b0 as u32 | (b1.unwrap_or(0) as u32) << 8) >> (6 * ri % 8) & 0x3f;
                        let di = (4 * t + 2 * z + w) * 256 + 16 * x + y;
                        assert_eq!(got, packed_elem(&b6, 6, di), "b6 result {ri}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 400, "b6: only {checked} elements checked");
}

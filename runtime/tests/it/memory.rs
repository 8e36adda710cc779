//! Checked device memory: registry, global checks, LDS/scratch rules, FLAT apertures, atomics.

use wavejit_runtime::memory::{DeviceMemory, ScratchLayout, WaveMemEnv};
use wavejit_translator::env::{
    AtomicOp, MemError, Space, WaveEnv, PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE,
};
use wavejit_translator::interp::run_block;
use wavejit_translator::ir::{Block, Builder, Exit, Op, Ty};
use wavejit_translator::jit::Jit;
use wavejit_translator::wave::WaveState;

fn addrs(f: impl Fn(usize) -> u64) -> [u64; 64] {
    std::array::from_fn(f)
}

#[test]
fn allocations_are_aligned_zeroed_and_round_trip() {
    let m = DeviceMemory::new();
    let a = m.alloc(1000).unwrap();
    assert_eq!(a % 256, 0);
    assert_eq!(m.read(a, 1000).unwrap(), vec![0u8; 1000]);
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
    m.write(a, &data).unwrap();
    assert_eq!(m.read(a, 1000).unwrap(), data);
    assert_eq!(m.read(a + 10, 5).unwrap(), data[10..15].to_vec());
    assert!(m.write(a + 999, &[1, 2]).is_err());
    assert!(m.read(a, 1001).is_err());
    assert!(m.free(a));
    assert!(!m.free(a));
    assert!(m.read(a, 1).is_err());
    assert!(m.alloc(usize::MAX).is_err());
}

#[test]
fn global_loads_and_stores_check_every_lane() {
    let m = DeviceMemory::new();
    let buf = m.alloc(256).unwrap();
    let init: Vec<u8> = (0..256u32).map(|i| (i ^ 0x5A) as u8).collect();
    m.write(buf, &init).unwrap();
    let (mut lds, mut scratch) = (vec![0u8; 0], vec![0u8; 0]);
    let g = m.begin_launch();
    let mut env = WaveMemEnv::new(&m, &mut lds, &mut scratch, ScratchLayout::default());

    let a = addrs(|l| buf + 4 * l as u64);
    let mut out = [0xDEAD_u64; 64];
    env.load(Space::Global, &a, u64::MAX, 4, &mut out).unwrap();
    for l in 0..64 {
        let b = &init[4 * l..4 * l + 4];
        assert_eq!(out[l], u32::from_le_bytes(b.try_into().unwrap()) as u64);
    }
    // Unaligned 8-byte load.
    let a1 = addrs(|_| buf + 3);
    env.load(Space::Global, &a1, 1, 8, &mut out).unwrap();
    assert_eq!(out[0], u64::from_le_bytes(init[3..11].try_into().unwrap()));

    // Lane 63 reads one byte past the end: the first faulting lane is reported.
    let mut bad = a;
    bad[63] = buf + 253;
    let e = env
        .load(Space::Global, &bad, u64::MAX, 4, &mut out)
        .unwrap_err();
    assert_eq!(
        e,
        MemError::OutOfRange {
            space: Space::Global,
            addr: buf + 253,
            size: 4,
            lane: 63
        }
    );
    // The same lane inactive: fine.
    env.load(Space::Global, &bad, u64::MAX >> 1, 4, &mut out)
        .unwrap();
    // A store that faults writes nothing.
    let data = [0x1122_3344u64; 64];
    assert!(env.store(Space::Global, &bad, u64::MAX, 4, &data).is_err());
    // Stores of inactive lanes do not happen.
    env.store(Space::Global, &a, 0b101, 2, &data).unwrap();
    drop(g);
    let after = m.read(buf, 256).unwrap();
    let mut expect = init.clone();
    expect[0..2].copy_from_slice(&[0x44, 0x33]);
    expect[8..10].copy_from_slice(&[0x44, 0x33]);
    assert_eq!(after, expect);
}

#[test]
fn lanes_may_use_different_allocations_and_null_faults() {
    let m = DeviceMemory::new();
    let x = m.alloc(64).unwrap();
    let y = m.alloc(64).unwrap();
    m.write(x, &[7; 64]).unwrap();
    m.write(y, &[9; 64]).unwrap();
    let (mut lds, mut scratch) = (vec![], vec![]);
    let _g = m.begin_launch();
    let mut env = WaveMemEnv::new(&m, &mut lds, &mut scratch, ScratchLayout::default());
    let a = addrs(|l| {
        if l % 2 == 0 {
            x + l as u64
        } else {
            y + l as u64
        }
    });
    let mut out = [0u64; 64];
    env.load(Space::Global, &a, u64::MAX, 1, &mut out).unwrap();
    for (l, &o) in out.iter().enumerate() {
        assert_eq!(o, if l % 2 == 0 { 7 } else { 9 });
    }
    let mut n = a;
    n[5] = 0;
    let e = env
        .load(Space::Global, &n, u64::MAX, 1, &mut out)
        .unwrap_err();
    assert!(
        matches!(
            e,
            MemError::OutOfRange {
                lane: 5,
                addr: 0,
                ..
            }
        ),
        "{e:?}"
    );
    // Address overflow near u64::MAX is a fault, not a wrap.
    let w = addrs(|_| u64::MAX - 1);
    assert!(env.load(Space::Global, &w, 1, 4, &mut out).is_err());
    assert!(env.scalar_load(0x10, &mut [0u32; 2]).is_err());
}

#[test]
fn lds_out_of_range_reads_zero_and_drops_writes() {
    let m = DeviceMemory::new();
    let mut lds = vec![0u8; 128];
    let mut scratch = vec![];
    let mut env = WaveMemEnv::new(&m, &mut lds, &mut scratch, ScratchLayout::default());
    let a = addrs(|l| 4 * l as u64); // lanes 32.. are out of range
    let data = addrs(|l| 0x100 + l as u64);
    env.store(Space::Lds, &a, u64::MAX, 4, &data).unwrap();
    let mut out = [0xFFFF_u64; 64];
    env.load(Space::Lds, &a, u64::MAX, 4, &mut out).unwrap();
    for (l, &o) in out.iter().enumerate() {
        assert_eq!(o, if l < 32 { 0x100 + l as u64 } else { 0 }, "lane {l}");
    }
    // Atomic add in lane order; two lanes on the same word see each other's update.
    let same = addrs(|_| 8);
    let fives = [5u64; 64];
    env.atomic(
        Space::Lds,
        AtomicOp::Add,
        &same,
        0b11,
        4,
        &fives,
        &[0; 64],
        &mut out,
    )
    .unwrap();
    assert_eq!((out[0], out[1]), (0x102, 0x107));
    // Out-of-range atomic returns 0 and changes nothing; misaligned atomic faults.
    let far = addrs(|_| 4096);
    env.atomic(
        Space::Lds,
        AtomicOp::Add,
        &far,
        1,
        4,
        &fives,
        &[0; 64],
        &mut out,
    )
    .unwrap();
    assert_eq!(out[0], 0);
    let odd = addrs(|_| 2);
    assert!(matches!(
        env.atomic(
            Space::Lds,
            AtomicOp::Add,
            &odd,
            1,
            4,
            &fives,
            &[0; 64],
            &mut out
        ),
        Err(MemError::Misaligned { .. })
    ));
    assert_eq!(
        u32::from_le_bytes(lds[8..12].try_into().unwrap()),
        0x102 + 10
    );
}

#[test]
fn scratch_is_per_lane_and_flat_apertures_resolve() {
    let m = DeviceMemory::new();
    let g = m.alloc(512).unwrap();
    let mut lds = vec![0u8; 256];
    let mut scratch = vec![0u8; 64 * 16];
    let gate = m.begin_launch();
    let mut env = WaveMemEnv::new(&m, &mut lds, &mut scratch, ScratchLayout { per_lane: 16 });
    let off = addrs(|_| 4);
    let data = addrs(|l| 1000 + l as u64);
    env.store(Space::Scratch, &off, u64::MAX, 4, &data).unwrap();
    let mut out = [0u64; 64];
    env.load(Space::Scratch, &off, u64::MAX, 4, &mut out)
        .unwrap();
    assert_eq!(out, data);
    let e = env
        .load(Space::Scratch, &addrs(|_| 13), 1 << 7, 4, &mut out)
        .unwrap_err();
    assert_eq!(
        e,
        MemError::OutOfRange {
            space: Space::Scratch,
            addr: 13,
            size: 4,
            lane: 7
        }
    );

    // FLAT: lane 0 -> LDS offset 12, lane 1 -> lane 1's scratch offset 4, lane 2 -> global.
    let mut fa = [0u64; 64];
    fa[0] = SHARED_APERTURE_BASE + 12;
    fa[1] = PRIVATE_APERTURE_BASE + 4;
    fa[2] = g + 40;
    let fd = addrs(|l| 0xAB00 + l as u64);
    env.store(Space::Flat, &fa, 0b111, 4, &fd).unwrap();
    let mut fo = [0u64; 64];
    env.load(Space::Flat, &fa, 0b111, 4, &mut fo).unwrap();
    assert_eq!(&fo[..3], &[0xAB00, 0xAB01, 0xAB02]);
    // Outside the LDS through the aperture: reads 0 like DS.
    fa[0] = SHARED_APERTURE_BASE + 4096;
    env.load(Space::Flat, &fa, 1, 4, &mut fo).unwrap();
    assert_eq!(fo[0], 0);
    drop(gate);
    assert_eq!(u32::from_le_bytes(lds[12..16].try_into().unwrap()), 0xAB00);
    assert_eq!(
        u32::from_le_bytes(scratch[20..24].try_into().unwrap()),
        0xAB01
    );
    assert_eq!(m.read(g + 40, 4).unwrap(), 0xAB02u32.to_le_bytes());
}

#[test]
fn global_atomics_are_real_host_atomics_across_threads() {
    let m = DeviceMemory::new();
    let buf = m.alloc(64).unwrap();
    m.write(buf + 8, &1.0f32.to_bits().to_le_bytes()).unwrap();
    let g = m.begin_launch();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let (mut lds, mut scratch) = (vec![], vec![]);
                let mut env = WaveMemEnv::new(&m, &mut lds, &mut scratch, ScratchLayout::default());
                let a = addrs(|_| buf);
                let f = addrs(|_| buf + 8);
                let one = [1u64; 64];
                let half = [0.5f32.to_bits() as u64; 64];
                let mut out = [0u64; 64];
                for _ in 0..500 {
                    env.atomic(
                        Space::Global,
                        AtomicOp::Add,
                        &a,
                        u64::MAX,
                        4,
                        &one,
                        &one,
                        &mut out,
                    )
                    .unwrap();
                    env.atomic(
                        Space::Global,
                        AtomicOp::FAdd,
                        &f,
                        0b11,
                        4,
                        &half,
                        &one,
                        &mut out,
                    )
                    .unwrap();
                }
            });
        }
    });
    drop(g);
    let r = m.read(buf, 12).unwrap();
    assert_eq!(
        u32::from_le_bytes(r[0..4].try_into().unwrap()),
        4 * 500 * 64
    );
    // 1 + 4 threads * 500 * 2 lanes * 0.5: exact in f32.
    assert_eq!(
        f32::from_bits(u32::from_le_bytes(r[8..12].try_into().unwrap())),
        2001.0
    );
}

#[test]
fn global_atomic_returns_pre_values_in_lane_order() {
    let m = DeviceMemory::new();
    let buf = m.alloc(16).unwrap();
    m.write(buf, &10u64.to_le_bytes()).unwrap();
    let (mut lds, mut scratch) = (vec![], vec![]);
    let _g = m.begin_launch();
    let mut env = WaveMemEnv::new(&m, &mut lds, &mut scratch, ScratchLayout::default());
    let a = addrs(|_| buf);
    let mut out = [0u64; 64];
    let data = addrs(|l| l as u64 + 1);
    env.atomic(
        Space::Global,
        AtomicOp::Sub,
        &a,
        0b1011,
        8,
        &data,
        &[0; 64],
        &mut out,
    )
    .unwrap();
    // lane 0 sees 10 (-1), lane 1 sees 9 (-2), lane 3 sees 7 (-4) -> 3
    assert_eq!((out[0], out[1], out[3]), (10, 9, 7));
    let cmp = [3u64; 64];
    env.atomic(
        Space::Global,
        AtomicOp::CmpSwap,
        &a,
        1,
        8,
        &[77; 64],
        &cmp,
        &mut out,
    )
    .unwrap();
    assert_eq!(out[0], 3);
    let mut s = [0u32; 2];
    env.scalar_load(buf + 2, &mut s).unwrap(); // low two bits ignored
    assert_eq!(s, [77, 0]);
    assert!(matches!(
        env.atomic(
            Space::Global,
            AtomicOp::Add,
            &addrs(|_| buf + 4),
            1,
            8,
            &data,
            &data,
            &mut out
        ),
        Err(MemError::Misaligned { lane: 0, .. })
    ));
    let c1 = env.clock();
    assert!(env.clock() > c1);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Random lane offsets around a 256-byte allocation (some outside it): a request
        /// succeeds exactly when every active lane's bytes are inside, the first faulting
        /// lane is the lowest bad active lane, and loaded values match a host model.
        #[test]
        fn global_requests_match_a_host_model(
            offs in proptest::collection::vec(-40i64..300, 64),
            mask in any::<u64>(),
            size in prop::sample::select(vec![1u32, 2, 4, 8]),
        ) {
            let m = DeviceMemory::new();
            let buf = m.alloc(256).unwrap();
            let init: Vec<u8> = (0..256u32).map(|i| (i * 37 + 11) as u8).collect();
            m.write(buf, &init).unwrap();
            let (mut lds, mut scratch) = (vec![], vec![]);
            let _g = m.begin_launch();
            let mut env = WaveMemEnv::new(&m, &mut lds, &mut scratch, ScratchLayout::default());
            let a = addrs(|l| buf.wrapping_add_signed(offs[l]));
            let ok = |l: usize| offs[l] >= 0 && offs[l] + size as i64 <= 256;
            let first_bad = (0..64).find(|&l| mask >> l & 1 == 1 && !ok(l));
            let mut out = [0u64; 64];
            match env.load(Space::Global, &a, mask, size, &mut out) {
                Ok(()) => {
                    prop_assert!(first_bad.is_none());
                    for l in (0..64).filter(|&l| mask >> l & 1 == 1) {
                        let o = offs[l] as usize;
                        let mut want = 0u64;
                        for i in (0..size as usize).rev() {
                            want = want << 8 | init[o + i] as u64;
                        }
                        prop_assert_eq!(out[l], want);
                    }
                }
                Err(MemError::OutOfRange { lane, .. }) => {
                    prop_assert_eq!(Some(lane as usize), first_bad)
                }
                Err(e) => prop_assert!(false, "unexpected {:?}", e),
            }
        }

        /// LDS stores never write outside the LDS and out-of-range lanes read 0.
        #[test]
        fn lds_requests_stay_inside(
            offs in proptest::collection::vec(0u64..200, 64),
            mask in any::<u64>(),
        ) {
            let m = DeviceMemory::new();
            let mut lds = vec![0u8; 128];
            let mut scratch = vec![];
            let mut env = WaveMemEnv::new(&m, &mut lds, &mut scratch, ScratchLayout::default());
            let a = addrs(|l| offs[l]);
            let d = addrs(|l| 0x8000_0000 | l as u64);
            env.store(Space::Lds, &a, mask, 4, &d).unwrap();
            let mut out = [7u64; 64];
            env.load(Space::Lds, &a, mask, 4, &mut out).unwrap();
            for l in (0..64).filter(|&l| mask >> l & 1 == 1) {
                if offs[l] + 4 > 128 {
                    prop_assert_eq!(out[l], 0);
                }
            }
            prop_assert_eq!(lds.len(), 128);
        }
    }
}

/// Requests rotating over more buffers than the allocation cache holds, at every access
/// size, with full and partial masks (inactive lanes hold wild addresses): every value
/// matches a host model and an overrun in any buffer still faults at its first lane.
#[test]
fn global_requests_rotating_over_many_buffers() {
    let m = DeviceMemory::new();
    let bufs: Vec<u64> = (0..6).map(|_| m.alloc(512).unwrap()).collect();
    let mut model: Vec<Vec<u8>> = Vec::new();
    for (b, &base) in bufs.iter().enumerate() {
        let init: Vec<u8> = (0..512u32)
            .map(|i| (i * 13 + 7 * b as u32 + 1) as u8)
            .collect();
        m.write(base, &init).unwrap();
        model.push(init);
    }
    let (mut lds, mut scratch) = (vec![0u8; 0], vec![0u8; 0]);
    let g = m.begin_launch();
    let mut env = WaveMemEnv::new(&m, &mut lds, &mut scratch, ScratchLayout::default());
    let partial = 0xF0F0_0000_FFFF_0001u64;
    for round in 0..3u64 {
        for (b, &base) in bufs.iter().enumerate() {
            for size in [1u32, 2, 4, 8] {
                let mask = if (round + b as u64).is_multiple_of(2) {
                    u64::MAX
                } else {
                    partial
                };
                let a = addrs(|l| {
                    if mask >> l & 1 == 1 {
                        base + size as u64 * l as u64
                    } else {
                        0xBAD0_0000_0000 + l as u64
                    }
                });
                let mut out = [0x5555_u64; 64];
                env.load(Space::Global, &a, mask, size, &mut out).unwrap();
                for (l, &got) in out.iter().enumerate() {
                    let want = if mask >> l & 1 == 1 {
                        let o = size as usize * l;
                        let mut v = [0u8; 8];
                        v[..size as usize].copy_from_slice(&model[b][o..o + size as usize]);
                        u64::from_le_bytes(v)
                    } else {
                        0x5555
                    };
                    assert_eq!(got, want, "buf {b} size {size} lane {l}");
                }
                let data = addrs(|l| (l as u64 * 0x0101_0101_0101_0101) ^ round ^ b as u64);
                env.store(Space::Global, &a, mask, size, &data).unwrap();
                for (l, d) in data.iter().enumerate() {
                    if mask >> l & 1 == 1 {
                        let o = size as usize * l;
                        let bytes = d.to_le_bytes();
                        model[b][o..o + size as usize].copy_from_slice(&bytes[..size as usize]);
                    }
                }
            }
            // Lane 40 runs past this buffer's end (lane 50 too): lane 40 is reported and
            // nothing is stored.
            let mut bad = addrs(|l| base + 4 * l as u64);
            bad[40] = base + 510;
            bad[50] = base + 511;
            let e = env
                .store(Space::Global, &bad, u64::MAX, 4, &[0x77; 64])
                .unwrap_err();
            assert_eq!(
                e,
                MemError::OutOfRange {
                    space: Space::Global,
                    addr: base + 510,
                    size: 4,
                    lane: 40
                }
            );
        }
    }
    drop(g);
    for (b, &base) in bufs.iter().enumerate() {
        assert_eq!(m.read(base, 512).unwrap(), model[b], "buf {b}");
    }
}

/// One block: a load of `size` bytes at `addrs` into v0 (all lanes written), then a store of
/// v2 there, both over `mask`.
fn jit_block(space: Space, addrs: &[u64; 64], mask: u64, size: u8) -> Block {
    let mut b = Builder::new(0x100, 64);
    let lo: [u32; 64] = std::array::from_fn(|l| addrs[l] as u32);
    let hi: [u32; 64] = std::array::from_fn(|l| (addrs[l] >> 32) as u32);
    let lo = b.push(Op::LaneConst(Box::new(lo)), Some(Ty::V32));
    let hi = b.push(Op::LaneConst(Box::new(hi)), Some(Ty::V32));
    let addr = b.push(Op::Pack { lo, hi }, Some(Ty::V64));
    let k = |b: &mut Builder, bits| b.push(Op::Const { ty: Ty::S64, bits }, Some(Ty::S64));
    let (mask, all) = (k(&mut b, mask), k(&mut b, u64::MAX));
    let (pc, signed) = (0x100, true);
    let v = b.push(
        Op::Load {
            pc,
            space,
            addr,
            size,
            signed,
            mask,
        },
        Some(Ty::V32),
    );
    b.push(
        Op::SetVgpr {
            reg: 0,
            val: v,
            mask: all,
        },
        None,
    );
    let data = b.push(Op::GetVgpr(2), Some(Ty::V32));
    b.push(
        Op::Store {
            pc,
            space,
            addr,
            size,
            data,
            mask,
        },
        None,
    );
    b.finish(Exit::Jump(0x200))
}

/// The JIT, whose loads and stores go direct when the environment's windows (cached
/// allocations, the LDS) hold every active lane, against the interpreter under this
/// runtime's rules: LDS lanes out of range read 0 and drop writes, a request spread over two
/// allocations, FLAT lanes in the LDS aperture, a lane past the end of an allocation.
#[test]
fn jit_direct_memory_path_follows_the_runtime_rules() {
    let m = DeviceMemory::new();
    let (a, b) = (m.alloc(512).unwrap(), m.alloc(512).unwrap());
    let init = |m: &DeviceMemory| {
        for (base, salt) in [(a, 0x3Du8), (b, 0x71)] {
            let bytes: Vec<u8> = (0..512u32)
                .map(|i| (i as u8).wrapping_mul(salt) ^ 0x80)
                .collect();
            m.write(base, &bytes).unwrap();
        }
    };
    let lds0: Vec<u8> = (0..256u32)
        .map(|i| (i as u8).wrapping_mul(29) | 1)
        .collect();
    let cases: Vec<(Space, [u64; 64], u64, u8)> = vec![
        (Space::Global, addrs(|l| a + 3 + 7 * l as u64), u64::MAX, 4),
        (
            Space::Global,
            addrs(|l| a + 2 * l as u64),
            0xF0F0_0F0F_FFFF_0001,
            2,
        ),
        (
            Space::Global,
            addrs(|l| {
                if l < 32 {
                    a + 4 * l as u64
                } else {
                    b + 4 * l as u64
                }
            }),
            u64::MAX,
            4,
        ),
        (Space::Global, addrs(|l| a + 480 + l as u64), 0xFFFF_FFFF, 2),
        (
            Space::Flat,
            addrs(|l| {
                if l % 2 == 0 {
                    b + l as u64
                } else {
                    SHARED_APERTURE_BASE + l as u64
                }
            }),
            u64::MAX,
            1,
        ),
        (Space::Lds, addrs(|l| 4 * l as u64), u64::MAX, 4),
        (
            Space::Lds,
            addrs(|l| 1 + 5 * l as u64),
            0x00FF_FF00_0000_FFFF,
            2,
        ),
        (Space::Lds, addrs(|l| 200 + l as u64), u64::MAX, 1),
    ];
    let jit = Jit::new().unwrap();
    for (space, ad, mask, size) in cases {
        let block = jit_block(space, &ad, mask, size);
        let cb = jit.compile(&block).unwrap();
        let mut results = vec![];
        for engine in 0..2 {
            init(&m);
            let mut lds = lds0.clone();
            let mut scratch = vec![];
            let mut s = WaveState::new_boxed(64);
            for l in 0..64 {
                s.vgpr[0][l] = 0xDEAD_BEEF;
                s.vgpr[2][l] = 0x1234_5678u32.rotate_left(l as u32);
            }
            let r: Vec<_> = {
                let _g = m.begin_launch();
                let mut env = WaveMemEnv::new(&m, &mut lds, &mut scratch, ScratchLayout::default());
                // Twice: the second run finds the allocations cached, so the JIT can go direct.
                (0..2)
                    .map(|_| match engine {
                        0 => run_block(&block, &mut s, &mut env),
                        _ => cb.run(&mut s, &mut env),
                    })
                    .collect()
            };
            let mem = (m.read(a, 512).unwrap(), m.read(b, 512).unwrap());
            results.push((r, s.vgpr[0], mem, lds));
        }
        assert!(results[0] == results[1], "{space:?} {mask:#x} size {size}");
    }
}

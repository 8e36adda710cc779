//! Differential test on real code: the basic blocks (a linear sweep, each block starting where
//! the previous one ended) of the
//! committed gfx942 code objects in `tests/kernels/gfx942/`, lifted by the translator, run
//! from several random wave states by the interpreter and by the JIT; state, memory, exit
//! and faults must be bit-identical, and every lifted block must compile.

use std::path::PathBuf;
use wavejit_translator::env::CodeSource;
use wavejit_translator::interp::{run_block, test_env::FlatEnv};
use wavejit_translator::isa::{decode, Gpu, Target};
use wavejit_translator::jit::Jit;
use wavejit_translator::lift::lift_block;
use wavejit_translator::wave::WaveState;

const GLOBAL: u64 = 0x4000_0000;

struct Text {
    addr: u64,
    bytes: Vec<u8>,
}

impl CodeSource for Text {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        let off = usize::try_from(pc.checked_sub(self.addr)?).ok()?;
        self.bytes.get(off..).filter(|b| !b.is_empty())
    }
}

fn rd(b: &[u8], off: usize, n: usize) -> u64 {
    let mut x = [0u8; 8];
    x[..n].copy_from_slice(&b[off..off + n]);
    u64::from_le_bytes(x)
}

/// The `.text` section of an ELF64 little-endian file.
fn text_section(elf: &[u8]) -> Option<Text> {
    let shoff = rd(elf, 0x28, 8) as usize;
    let shentsize = rd(elf, 0x3A, 2) as usize;
    let shnum = rd(elf, 0x3C, 2) as usize;
    let shstrndx = rd(elf, 0x3E, 2) as usize;
    let sh = |i: usize| shoff + i * shentsize;
    let stroff = rd(elf, sh(shstrndx) + 0x18, 8) as usize;
    for i in 0..shnum {
        let name = rd(elf, sh(i), 4) as usize;
        let nm = &elf[stroff + name..];
        let end = nm.iter().position(|&c| c == 0)?;
        if &nm[..end] == b".text" {
            let addr = rd(elf, sh(i) + 0x10, 8);
            let off = rd(elf, sh(i) + 0x18, 8) as usize;
            let size = rd(elf, sh(i) + 0x20, 8) as usize;
            return Some(Text {
                addr,
                bytes: elf.get(off..off + size)?.to_vec(),
            });
        }
    }
    None
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A state whose SGPR pairs mostly point into the test memory and whose VGPRs hold small
/// values (so computed addresses often land inside it), with a random EXEC.
fn state(seed: u64, pc: u64) -> Box<WaveState> {
    let mut r = Rng(seed);
    let mut s = WaveState::new_boxed(64);
    for reg in 0..256 {
        for l in 0..64 {
            let x = r.next();
            s.vgpr[reg][l] = if x.is_multiple_of(4) {
                x as u32
            } else {
                (x % 64) as u32
            };
        }
    }
    for c in (0..100).step_by(2) {
        let p = GLOBAL + (r.next() % 0x800) * 4;
        s.set_sgpr64(c, p);
    }
    s.set_exec(match seed % 3 {
        0 => u64::MAX,
        1 => r.next(),
        _ => 0x0000_FFFF_0000_FFFF,
    });
    s.scc = (r.next() & 1) as u32;
    s.mode = 0x3F0;
    s.pc = pc;
    s
}

fn env(seed: u64) -> FlatEnv {
    let mut r = Rng(seed ^ 0x77);
    let mut e = FlatEnv::new(GLOBAL, 0x4000, 0x1_0000, 256);
    for b in e.global.iter_mut() {
        *b = r.next() as u8;
    }
    for b in e.lds.iter_mut() {
        *b = r.next() as u8;
    }
    e
}

fn clone_state(s: &WaveState) -> Box<WaveState> {
    let mut n = WaveState::new_boxed(s.wave_size);
    n.vgpr = s.vgpr;
    n.sgpr = s.sgpr;
    n.scc = s.scc;
    n.mode = s.mode;
    n.status = s.status;
    n.trapsts = s.trapsts;
    n.pc = s.pc;
    n.counters = s.counters;
    n
}

fn same(a: &WaveState, b: &WaveState) -> bool {
    a.vgpr == b.vgpr
        && a.sgpr == b.sgpr
        && (a.scc, a.mode, a.pc) == (b.scc, b.mode, b.pc)
        && a.counters == b.counters
}

#[test]
fn lifted_kernel_blocks_agree() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels/gfx942");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        panic!("no kernels at {}", dir.display());
    };
    let target = Target::new(Gpu::GFX942);
    let jit = Jit::new().expect("host JIT");
    let (mut blocks, mut runs, mut grouped) = (0, 0, 0);
    let all = std::env::var_os("DIFF_KERNELS_ALL").is_some();
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "hsaco"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no code objects in {}", dir.display());
    for f in files {
        let elf = std::fs::read(&f).expect("readable");
        let text = text_section(&elf).expect(".text");
        let mut pc = text.addr;
        while let Some(bytes) = text.bytes_at(pc) {
            let size = match decode(&target, bytes, pc) {
                Ok(i) => i.size as u64,
                Err(_) => 4,
            };
            let block = lift_block(&target, &text, pc, 0x3F0);
            let cb = jit.compile(&block).unwrap_or_else(|e| {
                panic!(
                    "{}: block at {pc:#x} does not compile: {e}\n{block}",
                    f.display()
                )
            });
            blocks += 1;
            grouped += cb.is_grouped() as u32;
            for seed in 0..4u64 {
                let seed = seed ^ pc.wrapping_mul(31);
                let s0 = state(seed, pc);
                let e0 = env(seed);
                let (mut si, mut ei) = (clone_state(&s0), e0.clone());
                let (mut sj, mut ej) = (clone_state(&s0), e0.clone());
                let ri = run_block(&block, &mut si, &mut ei);
                let rj = cb.run(&mut sj, &mut ej);
                runs += 1;
                assert_eq!(
                    ri,
                    rj,
                    "{}: block {pc:#x} seed {seed}: exit\n{block}",
                    f.display()
                );
                assert!(
                    same(&si, &sj) && ei == ej,
                    "{}: block {pc:#x} seed {seed}: state differs\n{block}",
                    f.display()
                );
            }
            // Next block: where this one ended (or the next instruction when it is empty).
            // DIFF_KERNELS_ALL=1: a block from every instruction (~5000 blocks, slow).
            pc = if block.end_pc > pc && !all {
                block.end_pc
            } else {
                pc + size
            };
        }
    }
    assert!(blocks > 50, "only {blocks} blocks");
    eprintln!("{blocks} blocks ({grouped} in the lane-group form), {runs} differential runs");
}

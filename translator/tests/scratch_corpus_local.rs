// LOCAL ONLY - not committed
use wavejit_translator::env::CodeSource;
use wavejit_translator::ir::Exit;
use wavejit_translator::isa::{Gpu, Target};
use wavejit_translator::lift::lift_block;
struct C(Vec<u8>);
impl CodeSource for C {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        self.0.get(pc as usize..)
    }
}
#[test]
fn corpus_lift() {
    let t = Target::new(Gpu::GFX942);
    let text = std::fs::read_to_string("/tmp/lift/insts.txt").unwrap();
    let mut bad = std::collections::BTreeMap::new();
    for line in text.lines() {
        let (hex, asm) = line.split_once('|').unwrap();
        let mut bytes: Vec<u8> = hex.split_whitespace().flat_map(|w| u32::from_str_radix(w, 16).unwrap().to_le_bytes()).collect();
        bytes.extend(0xbf810000u32.to_le_bytes());
        let b = lift_block(&t, &C(bytes), 0, 0);
        if let Exit::Unsupported { reason, .. } = &b.exit {
            if b.inst_count == 0 {
                let m = asm.split_whitespace().next().unwrap().to_string();
                bad.entry(m).or_insert_with(|| format!("{} || {}", asm.trim(), reason));
            }
        }
    }
    for (k, v) in &bad { println!("BAD {k}: {v}"); }
}

//! Image instructions (GFX11 MIMG, GFX12 VIMAGE/VSAMPLE): decoded fields, printed text and
//! the lifter's clean refusal. Words and texts from llvm-mc-22 (`-show-encoding`, and
//! `--disassemble` for the printed forms; the assembly is in each comment); the expected
//! fields are worked out by hand from the field layouts in `isa::rdna` (RDNA4 guide 15.13
//! for GFX12). The full per-opcode comparison with LLVM is in `decode_rdna_cases.rs`.

use wavejit_translator::env::CodeSource;
use wavejit_translator::ir::Exit;
use wavejit_translator::isa::{decode, disassemble, Format, Gpu, Inst, Op, Opnd, Target};
use wavejit_translator::lift::lift_block;

fn dec(gpu: Gpu, w: &[u32]) -> Inst {
    let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let t = Target::new(gpu);
    let inst = decode(&t, &bytes, 0x100).expect("decodes");
    assert_eq!(inst.size as usize, bytes.len());
    assert_eq!(inst.format, Format::Mimg);
    inst
}

fn text(gpu: Gpu, w: &[u32]) -> String {
    disassemble(&Target::new(gpu), &dec(gpu, w), 0x100)
}

#[test]
fn gfx11_mimg_fields() {
    // `image_sample v[0:3], v[4:5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D`
    let i = dec(Gpu::GFX1100, &[0xF06C_0F04, 0x1002_0004]);
    assert_eq!(i.op, Op::IMAGE_SAMPLE);
    assert_eq!(i.dst[0], Opnd::vgpr(0, 4));
    assert_eq!(i.src[0], Opnd::vgpr(4, 2));
    assert_eq!(i.src[2], Opnd::scalar(8, 8));
    assert_eq!(i.src[3], Opnd::scalar(16, 4));
    assert_eq!(i.imm & 0xF, 0xF); // DMASK
    assert_eq!((i.imm >> 4) & 7, 1); // DIM = 2D
                                     // `image_load v[0:4], v[4:5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D tfe`: TFE adds a VGPR.
    let i = dec(Gpu::GFX1100, &[0xF000_0F04, 0x0022_0004]);
    assert_eq!(i.dst[0], Opnd::vgpr(0, 5));
    assert!(i.mem.tfe);
    // `image_load v[0:1], v4, s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D a16 d16`: D16 packs the
    // four components in two VGPRs, A16 the two coordinates in one.
    let i = dec(Gpu::GFX1100, &[0xF003_0F04, 0x0002_0004]);
    assert_eq!(i.dst[0], Opnd::vgpr(0, 2));
    assert_eq!(i.src[0], Opnd::vgpr(4, 1));
    // `image_store v[0:1], v[4:5], s[8:15] dmask:0x3 dim:SQ_RSRC_IMG_2D`: data is a source.
    let i = dec(Gpu::GFX1100, &[0xF018_0304, 0x0002_0004]);
    assert_eq!(i.op, Op::IMAGE_STORE);
    assert!(!i.dst[0].is_some());
    assert_eq!(i.src[1], Opnd::vgpr(0, 2));
}

#[test]
fn gfx11_nsa_and_partial_nsa() {
    // `image_load v[0:3], [v4, v5, v6], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_3D`: NSA adds a
    // dword holding VADDR1..4.
    let w = [0xF000_0F09, 0x0002_0004, 0x0000_0605];
    assert_eq!(dec(Gpu::GFX1100, &w).size, 12);
    assert_eq!(
        text(Gpu::GFX1100, &w),
        "image_load v[0:3], [v4, v5, v6], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_3D"
    );
    // image_sample_d 2D needs 6 addresses: the fifth NSA operand takes the last two.
    let w = [0xF070_0F05, 0x1002_0004, 0x0C0B_0A09];
    assert_eq!(
        text(Gpu::GFX1100, &w),
        "image_sample_d  v[0:3], [v4, v9, v10, v11, v[12:13]], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D"
    );
    // `image_bvh_intersect_ray v[0:3], [v4, v5, v[6:8], v[9:11], v[12:14]], s[8:11]`
    let w = [0xF064_8F81, 0x0002_0004, 0x0C09_0605];
    assert_eq!(
        text(Gpu::GFX1100, &w),
        "image_bvh_intersect_ray v[0:3], [v4, v5, v[6:8], v[9:11], v[12:14]], s[8:11]"
    );
}

#[test]
fn gfx12_vimage_and_vsample() {
    // `image_load v[0:3], [v4, v5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D th:TH_LOAD_NT
    // scope:SCOPE_SE`
    let w = [0xD3C0_0001, 0x0014_1000, 0x0000_0504];
    let i = dec(Gpu::GFX1200, &w);
    assert_eq!(i.op, Op::IMAGE_LOAD);
    assert_eq!(i.dst[0], Opnd::vgpr(0, 4));
    assert_eq!(i.src[0], Opnd::vgpr(4, 1));
    assert_eq!(i.src[2], Opnd::scalar(8, 8));
    assert_eq!(i.mem.cpol, 1 | (1 << 3));
    assert_eq!(
        text(Gpu::GFX1200, &w),
        "image_load v[0:3], [v4, v5], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D th:TH_LOAD_NT scope:SCOPE_SE"
    );
    // `image_sample v[0:3], [v4, v5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D`
    let w = [0xE7C6_C001, 0x0800_1000, 0x0000_0504];
    let i = dec(Gpu::GFX1201, &w);
    assert_eq!(i.op, Op::IMAGE_SAMPLE);
    assert_eq!(i.src[3], Opnd::scalar(16, 4));
    assert_eq!(
        text(Gpu::GFX1201, &w),
        "image_sample v[0:3], [v4, v5], s[8:15], s[16:19] dmask:0xf dim:SQ_RSRC_IMG_2D"
    );
    // `image_load v0, v4, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_1D`: one address, no list.
    assert_eq!(
        text(Gpu::GFX1200, &[0xD040_0000, 0x0000_1000, 0x0000_0004]),
        "image_load v0, v4, s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_1D"
    );
}

#[test]
fn image_words_are_graphics_only_encodings_per_family() {
    // A GFX12 VIMAGE word is not an instruction on GFX11 and a GFX11 MIMG word not on GFX12.
    let vimage: Vec<u8> = [0xD3C0_0001u32, 0x0014_1000, 0x0000_0504]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    assert!(decode(&Target::new(Gpu::GFX1100), &vimage, 0).is_err());
    // A truncated MIMG NSA instruction is an error, not a panic.
    let nsa: Vec<u8> = [0xF000_0F09u32, 0x0002_0004]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let e = decode(&Target::new(Gpu::GFX1100), &nsa, 0x40).unwrap_err();
    assert_eq!(e.pc, 0x40);
}

struct Code(Vec<u8>);

impl CodeSource for Code {
    fn bytes_at(&self, pc: u64) -> Option<&[u8]> {
        self.0.get(pc as usize..)
    }
}

#[test]
fn lifter_reports_images_unsupported() {
    for (gpu, w) in [
        (Gpu::GFX1100, vec![0xF06C_0F04u32, 0x1002_0004]),
        (Gpu::GFX1200, vec![0xD3C0_0001, 0x0014_1000, 0x0000_0504]),
        (Gpu::GFX1201, vec![0xE7C6_C001, 0x0800_1000, 0x0000_0504]),
    ] {
        let code = Code(w.iter().flat_map(|x| x.to_le_bytes()).collect());
        let b = lift_block(&Target::new(gpu), &code, 0, 0);
        match b.exit {
            Exit::Unsupported { pc, ref reason } => {
                assert_eq!(pc, 0);
                assert!(reason.contains("not supported"), "{reason}");
            }
            ref e => panic!("{gpu}: image instruction lifted: {e:?}"),
        }
    }
}

//! The JIT refuses malformed IR with an error (the block then stays interpreted) instead of
//! panicking or generating wrong code.

use wavejit_translator::ir::*;
use wavejit_translator::jit::Jit;

fn c(b: &mut Builder, ty: Ty, bits: u64) -> Val {
    b.push(Op::Const { ty, bits }, Some(ty))
}

#[test]
fn malformed_blocks_are_rejected() {
    let jit = Jit::new().expect("host JIT");
    // V32 + V64 operands of one Bin.
    let mut b = Builder::new(0, 64);
    let x = c(&mut b, Ty::S32, 1);
    let y = c(&mut b, Ty::S64, 2);
    let vx = b.push(Op::Broadcast(x), Some(Ty::V32));
    let vy = b.push(Op::Broadcast(y), Some(Ty::V64));
    b.push(Op::Bin(BinOp::Add, vx, vy), Some(Ty::V64));
    assert!(jit.compile(&b.finish(Exit::EndPgm)).is_err());
    // Forward reference.
    let mut b = Builder::new(0, 64);
    b.push(Op::Un(UnOp::Not, Val(3)), Some(Ty::S32));
    assert!(jit.compile(&b.finish(Exit::EndPgm)).is_err());
    // Scalar slot out of range.
    let mut b = Builder::new(0, 64);
    let x = c(&mut b, Ty::S32, 1);
    b.push(Op::SetSgpr(200, x), None);
    assert!(jit.compile(&b.finish(Exit::EndPgm)).is_err());
    // Vector slot out of range.
    let mut b = Builder::new(0, 64);
    b.push(Op::GetVgpr(512), Some(Ty::V32));
    assert!(jit.compile(&b.finish(Exit::EndPgm)).is_err());
    // Bad memory size.
    let mut b = Builder::new(0, 64);
    let a = c(&mut b, Ty::S64, 0);
    let va = b.push(Op::Broadcast(a), Some(Ty::V64));
    let m = c(&mut b, Ty::S64, 1);
    b.push(
        Op::Load {
            pc: 0,
            space: wavejit_translator::env::Space::Global,
            addr: va,
            size: 3,
            signed: false,
            mask: m,
        },
        Some(Ty::V32),
    );
    assert!(jit.compile(&b.finish(Exit::EndPgm)).is_err());
    // A well-formed block still compiles.
    let mut b = Builder::new(0, 64);
    let x = c(&mut b, Ty::S32, 1);
    b.push(Op::SetSgpr(4, x), None);
    assert!(jit.compile(&b.finish(Exit::EndPgm)).is_ok());
}

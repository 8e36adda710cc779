mod fused;
mod lift;
mod mfma;
mod wmma;
mod wmma_lift;

mod fused;
mod lift;
mod mfma;
mod spelling;
mod wmma;
mod wmma_lift;

mod f16ops;
mod fp8;
mod minmax;
mod ops;
mod round;
mod scale_cvt;
mod scale_mx;
mod sr_small;

mod barrier;
mod exec;
mod exec2;
mod mem2;

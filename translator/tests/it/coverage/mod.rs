mod gfx9;
mod rdna;

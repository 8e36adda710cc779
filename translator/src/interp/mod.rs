//! IR interpreter: the slow path and the reference meaning of every IR op.

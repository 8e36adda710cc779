//! fault (to be written).

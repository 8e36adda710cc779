//! dispatch (to be written).

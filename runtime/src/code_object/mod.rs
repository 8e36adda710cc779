//! code_object (to be written).

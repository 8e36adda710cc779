//! Instruction semantics: lifting decoded instructions of one basic block to IR.

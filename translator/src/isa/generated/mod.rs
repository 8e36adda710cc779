//! PLACEHOLDER until the table generator lands: replaced wholesale by generated code.

/// Semantic opcodes (generated).
#[allow(non_camel_case_types, missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Op {
    S_ENDPGM,
    V_ADD_F32,
}

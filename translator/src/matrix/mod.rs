//! Matrix instructions (MFMA/SMFMAC/WMMA/SWMMAC): layouts, number formats, host GEMM
//! microkernels. Not yet implemented (issues 5 and 6).

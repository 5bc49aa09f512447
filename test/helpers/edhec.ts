// PerformanceAnalytics' Cornish–Fisher case (docs/oracles.md "Cornish–Fisher"): the first 100 monthly
// returns (1997-01 .. 2005-04) of the first column, "Convertible Arbitrage", of data/edhec.csv in
// the PerformanceAnalytics repository, and the modified VaR its own test expects at p = 0.95.
export const EDHEC_CONVERTIBLE_ARBITRAGE_100 = [
  0.0119, 0.0123, 0.0078, 0.0086, 0.0156, 0.0212, 0.0193, 0.0134, 0.0122, 0.01, 0.0, 0.0068, 0.0145, 0.0146, 0.0144, 0.0126, 0.0056, -0.0006, 0.006, -0.0319,
  -0.0196, -0.0214, 0.0269, 0.0113, 0.0219, 0.0082, 0.0136, 0.0243, 0.0166, 0.0102, 0.0101, 0.0048, 0.0096, 0.0045, 0.0124, 0.014, 0.0227, 0.0267, 0.0243,
  0.0223, 0.0149, 0.0179, 0.0093, 0.0162, 0.0141, 0.0052, -0.0081, -0.0002, 0.0344, 0.0182, 0.0162, 0.0157, 0.0033, 0.0012, 0.0091, 0.0142, 0.0078, 0.0117,
  0.008, -0.0094, 0.0148, -0.0049, 0.0053, 0.0096, 0.0033, 0.0004, -0.0159, 0.005, 0.0146, 0.0104, 0.0251, 0.0157, 0.0283, 0.0133, 0.0089, 0.015, 0.0136,
  -0.0058, -0.0072, -0.0087, 0.0171, 0.0146, 0.0092, 0.0054, 0.0119, 0.0017, 0.0061, 0.002, -0.0128, -0.0106, 0.0013, 0.004, -0.0017, -0.0044, 0.0081, 0.0056,
  -0.0096, -0.0058, -0.014, -0.0316,
];

/** PerformanceAnalytics: VaR(R, p = 0.95, method = "modified") = −0.014674 (a return; our VaR is its negative). */
export const EDHEC_MODIFIED_VAR_95 = -0.014674;
/** The same with method = "gaussian" (population standard deviation). */
export const EDHEC_GAUSSIAN_VAR_95 = -0.012133;

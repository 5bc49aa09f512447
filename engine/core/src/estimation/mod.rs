//! Estimation: from price histories to the model's mean and covariance factor. `estimate` (the
//! estimation itself), `covariance` (Σ in tiles), `linalg` (Cholesky with jitter) and
//! `covariance_part` (Σ's rows split over workers).

pub mod covariance;
pub mod covariance_part;
pub mod estimate;
pub mod linalg;

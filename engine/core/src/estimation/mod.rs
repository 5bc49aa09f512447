//! Estimation: from price histories to the model's mean and covariance factor. `returns` (the input
//! and its window of daily log returns), `covariance` (Σ in tiles), `linalg` (Cholesky with
//! jitter), `estimate` (the estimation itself), `vectors` (its vectors in one buffer, the encoded
//! answer's) and `covariance_part` (Σ's rows split over workers).

pub mod covariance;
pub mod covariance_part;
pub mod estimate;
pub mod linalg;
pub mod returns;
pub mod vectors;

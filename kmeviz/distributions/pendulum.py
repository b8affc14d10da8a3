"""The under-actuated pendulum of Grünewälder et al. (2012), Sec. 5.1: transitions for
the sparse-CME experiment."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import (
    check_positive_int,
    check_rng,
)


# -- the pendulum of Sec. 5.1 ------------------------------------------------------------
@dataclass(frozen=True)
class Pendulum:
    """Under-actuated pendulum (Deisenroth et al. 2009): θ = 0 is upright.

    θ̈ = (-μ θ̇ + m g l sin θ + u) / (m l²), integrated by RK4 over one step ``dt``.
    With ‖u‖ ≤ 5 N·m < m g l = 9.81 N·m the torque cannot swing it up directly.

    Constants. Sec. 5.1 of Grünewälder et al. states only the torque range u ∈ [-5, 5] N·m,
    the state ranges θ ∈ [-π, π], ω ∈ [-7, 7] rad/s and the reward; it defers the dynamics
    to Deisenroth et al. (2009), which is not among the papers kmeviz reproduces. The
    defaults here are the values usually quoted for that benchmark: mass m = 1 kg, length
    l = 1 m, friction μ = 0.05 N·m·s/rad, g = 9.81 m/s², one step dt = 0.05 s, integrated
    by RK4 (the paper does not say how it discretises). They were not checked against
    Deisenroth et al.; every one is a field, so another reading is one argument away.

    Parameters
    ----------
    mass, length, friction, gravity : float
        m (kg), l (m), μ (N·m·s/rad), g (m/s²).
    dt : float
        One step (s).
    max_torque : float
        The largest torque magnitude (N·m) when states are drawn.
    """

    mass: float = 1.0
    length: float = 1.0
    friction: float = 0.05
    gravity: float = 9.81
    dt: float = 0.05
    max_torque: float = 5.0

    def _deriv(self, theta, omega, u):
        ml2 = self.mass * self.length**2
        acc = (-self.friction * omega + self.mass * self.gravity * self.length * np.sin(theta)
               + u) / ml2
        return omega, acc

    def step(self, theta, omega, u):
        """(θ', ω') after one time step (θ' wrapped to [-π, π])."""
        u = np.clip(u, -self.max_torque, self.max_torque)
        k1 = self._deriv(theta, omega, u)
        k2 = self._deriv(theta + 0.5 * self.dt * k1[0], omega + 0.5 * self.dt * k1[1], u)
        k3 = self._deriv(theta + 0.5 * self.dt * k2[0], omega + 0.5 * self.dt * k2[1], u)
        k4 = self._deriv(theta + self.dt * k3[0], omega + self.dt * k3[1], u)
        theta2 = theta + self.dt / 6.0 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        omega2 = omega + self.dt / 6.0 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        return np.angle(np.exp(1j * theta2)), omega2

    def transitions(self, n: int, *, rng=None) -> tuple[np.ndarray, np.ndarray]:
        """n uniform states θ ∈ [-π, π], ω ∈ [-7, 7], u ∈ [-5, 5]: inputs
        (sin θ, cos θ, ω, u) and outputs (sin θ', cos θ', ω'). ``rng`` is keyword-only, as
        in every ``sample`` method."""
        n = check_positive_int(n, "n")
        rng = check_rng(rng)
        th = rng.uniform(-np.pi, np.pi, n)
        om = rng.uniform(-7.0, 7.0, n)
        u = rng.uniform(-self.max_torque, self.max_torque, n)
        th2, om2 = self.step(th, om, u)
        X = np.column_stack([np.sin(th), np.cos(th), om, u])
        Y = np.column_stack([np.sin(th2), np.cos(th2), om2])
        return X, Y

    @staticmethod
    def reward(theta, omega):
        """r(θ, ω) = exp(-θ² - 0.2 ω²)."""
        return np.exp(-np.asarray(theta) ** 2 - 0.2 * np.asarray(omega) ** 2)

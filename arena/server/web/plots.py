"""Charts drawn on the server as SVG polylines: the pages must read without JavaScript and fit a phone
(the SVG scales to the screen's width). Shared by the entrant's page (``arena.server.ladder.views``) and its
analytics (``arena.server.analytics.views``)."""

from __future__ import annotations


def rating_plot(
    points: list[tuple[int, float, float]], width: int = 600, height: int = 160
) -> dict[str, str]:
    """A rating's history as SVG polylines, drawn on the server (no script needed): ``points`` are (game
    number, mu, conservative rating), the last from ``arena.stats.rating.conservative``."""
    if len(points) < 2:
        return {}
    lows = [low for _, _, low in points]
    top, bottom = max(mu for _, mu, _ in points), min(lows)
    span = (top - bottom) or 1.0
    first, last = points[0][0], points[-1][0]

    def line(values: list[float]) -> str:
        return " ".join(
            f"{(seq - first) / ((last - first) or 1) * width:.1f},{(top - v) / span * height:.1f}"
            for (seq, _, _), v in zip(points, values, strict=True)
        )

    return {
        "mu": line([mu for _, mu, _ in points]),
        "low": line(lows),
        "range": f"mu from {points[0][1]:.1f} to {points[-1][1]:.1f} over games #{first} to #{last}",
    }

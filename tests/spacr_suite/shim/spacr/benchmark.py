"""spacr.benchmark as spaCR code imports it, answered by spacrbench."""

from spacrbench import (Measurement, Recommendation, available_memory_bytes, benchmark,
                        format_report, recommend_workers)

__all__ = ["Measurement", "Recommendation", "available_memory_bytes", "benchmark",
           "format_report", "recommend_workers"]

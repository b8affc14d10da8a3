"""Shared look of every kmeviz plot: the colours and labels of the two samples."""

COLOR_X, COLOR_Y, COLOR_ACCENT = "#1f77b4", "#d62728", "#2ca02c"
LABEL_X, LABEL_Y = "X ~ P", "Y ~ Q"

"""The VPP set-ups of the families: vppctl lines (and what else a family asks of the vpp driver)
for one DUT, pure functions, one module per kind."""

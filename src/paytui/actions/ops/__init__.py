"""One module per operation (or pair of operations sharing a shape): how it is prepared, sent,
proven and sent again, and its `Operation` spec. `paytui.actions.operations` lists them."""

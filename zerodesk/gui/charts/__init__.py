"""The Plan tab: the stage bars, memory versus Nd, offload, and their captions and exports."""

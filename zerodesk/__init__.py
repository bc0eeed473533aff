"""ZeroDesk: plan the memory of ZeRO data-parallel training."""

__version__ = "0.1.0"
APP_ID = "io.github.zerodesk.ZeroDesk"
APP_NAME = "ZeroDesk"

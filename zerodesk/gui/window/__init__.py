"""The main window: its parts wired together, menus, plan files, layout and start-up."""

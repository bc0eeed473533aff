"""What every part of the window shares: translation and localized figures, settings, theme, colours."""

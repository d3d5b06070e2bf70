"""The app's screens: the picker, the run screen, help and the modal dialogs."""

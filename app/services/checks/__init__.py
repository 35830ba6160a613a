"""`paretoscope check`: is a candidate a regression from its baseline?"""

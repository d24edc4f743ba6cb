import CNCurses
import Dashboard
